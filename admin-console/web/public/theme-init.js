// Applies the stored (or the system's) theme before first paint, so there is no flash.
try {
  var t = localStorage.getItem("admin-console.theme");
  if (t !== "light" && t !== "dark") t = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  document.documentElement.dataset.theme = t;
} catch (e) {}
