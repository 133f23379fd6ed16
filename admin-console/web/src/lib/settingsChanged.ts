// One signal between views: a cluster's settings were just written from this page, so what
// shows one of them (the header's allocation lock) reloads now instead of at its next poll.
const signals = new EventTarget();

class SettingsChanged extends Event {
  constructor(
    readonly clusterId: string,
    readonly key: string,
  ) {
    super("settings-changed");
  }
}

/** Tells every listener of `clusterId` that `key` was set or reset. */
export function announceSettingsChanged(clusterId: string, key: string): void {
  signals.dispatchEvent(new SettingsChanged(clusterId, key));
}

/** Calls `listener` with the key after each change of `clusterId`'s settings; answers the unsubscribe. */
export function onSettingsChanged(clusterId: string, listener: (key: string) => void): () => void {
  const handle = (event: Event) => {
    if (event instanceof SettingsChanged && event.clusterId === clusterId) listener(event.key);
  };
  signals.addEventListener("settings-changed", handle);
  return () => signals.removeEventListener("settings-changed", handle);
}
