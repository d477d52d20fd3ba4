// Progressive enhancement only: every page works without this file.
"use strict";
(function () {
  // Facets apply as soon as one changes (the Apply button stays for no-JS use).
  const facets = document.querySelector("form.facets");
  if (facets) {
    facets.addEventListener("change", () => facets.submit());
    const apply = facets.querySelector(".apply");
    if (apply) apply.hidden = true;
  }
  const links = () => Array.from(document.querySelectorAll(".result-link"));
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    const typing = target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement;
    if (event.key === "Escape" && typing) { target.blur(); return; }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "/") {
      event.preventDefault();
      const q = document.getElementById("q");
      q.focus();
      q.select();
    } else if (event.key === "j" || event.key === "k") {
      const all = links();
      if (!all.length) return;
      const at = all.indexOf(document.activeElement);
      const next = event.key === "j" ? Math.min(all.length - 1, at + 1) : Math.max(0, at - 1);
      all[next].focus();
    } else if (event.key === "[" || event.key === "]") {
      const rel = event.key === "[" ? "prev" : "next";
      const link = document.querySelector(`.neighbours a[rel="${rel}"], .pager a[rel="${rel}"]`);
      if (link) link.click();
    }
  });
})();
