// Applies the stored (or the system's) theme before first paint, so there is no flash; the
// same rule as src/lib/theme.ts, which takes over once the app runs.
(function () {
  var theme = null;
  try {
    theme = localStorage.getItem("ingress-dash.theme");
  } catch (e) {
    // Storage the browser refuses behaves as empty.
  }
  if (theme !== "light" && theme !== "dark") {
    theme = window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  document.documentElement.dataset.theme = theme;
})();
