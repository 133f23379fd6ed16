// The three analysis components that Elasticsearch's `.security` index asks for and that live in
// its `analysis-common` module, which the integ-test zip on Maven does not carry (nor is the
// module published on its own): the `pattern_capture` and `unique` token filters and the
// `uax_url_email` tokenizer of its `email` analyzer. Each wraps the Lucene class the real module
// wraps, from the distribution's own lib/lucene-analysis-common jar. Without them the security
// index cannot be created and every native-realm user or role write answers 400 "Unknown filter
// type [pattern_capture] for [email]". scripts/install-servers.sh compiles this against the
// distribution's lib/ and installs it as a plugin; see docs/testing.md.
package authproxy.test.analysis;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.email.UAX29URLEmailTokenizer;
import org.apache.lucene.analysis.miscellaneous.RemoveDuplicatesTokenFilter;
import org.apache.lucene.analysis.pattern.PatternCaptureGroupTokenFilter;
import org.elasticsearch.index.analysis.TokenFilterFactory;
import org.elasticsearch.index.analysis.TokenizerFactory;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.plugins.AnalysisPlugin;
import org.elasticsearch.plugins.Plugin;

public class SecurityIndexAnalysis extends Plugin implements AnalysisPlugin {
    @Override
    public Map<String, AnalysisProvider<TokenFilterFactory>> getTokenFilters() {
        AnalysisProvider<TokenFilterFactory> patternCapture = (index, environment, name, settings) -> {
            List<String> sources = settings.getAsList("patterns");
            Pattern[] patterns = sources.stream().map(Pattern::compile).toArray(Pattern[]::new);
            boolean preserveOriginal = settings.getAsBoolean("preserve_original", true);
            return filter(name, input -> new PatternCaptureGroupTokenFilter(input, preserveOriginal, patterns));
        };
        AnalysisProvider<TokenFilterFactory> unique =
            (index, environment, name, settings) -> filter(name, RemoveDuplicatesTokenFilter::new);
        return Map.of(
            "pattern_capture", AnalysisPlugin.requiresAnalysisSettings(patternCapture),
            "unique", unique
        );
    }

    @Override
    public Map<String, AnalysisProvider<TokenizerFactory>> getTokenizers() {
        AnalysisProvider<TokenizerFactory> email =
            (index, environment, name, settings) -> TokenizerFactory.newFactory(name, UAX29URLEmailTokenizer::new);
        return Map.of("uax_url_email", email);
    }

    private static TokenFilterFactory filter(String name, java.util.function.UnaryOperator<TokenStream> wrap) {
        return new TokenFilterFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public TokenStream create(TokenStream input) {
                return wrap.apply(input);
            }
        };
    }
}
