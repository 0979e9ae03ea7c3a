(function () {
  "use strict";
  var model = document.getElementById("f-model");
  var category = document.getElementById("f-category");
  var outcome = document.getElementById("f-outcome");
  var count = document.getElementById("f-count");
  var pairs = Array.prototype.slice.call(document.querySelectorAll("details.pair"));

  function apply() {
    var m = model.value, c = category.value, o = outcome.value, shown = 0;
    document.querySelectorAll("[data-model]").forEach(function (el) {
      if (!el.classList.contains("run")) {
        el.hidden = m !== "" && el.getAttribute("data-model") !== m;
      }
    });
    pairs.forEach(function (pair) {
      var any = false;
      pair.querySelectorAll(".run").forEach(function (run) {
        var ok = (m === "" || run.getAttribute("data-model") === m) &&
          (o === "" || run.getAttribute("data-outcome").split(" ").indexOf(o) >= 0);
        run.hidden = !ok;
        any = any || ok;
      });
      var visible = any && (c === "" || pair.getAttribute("data-category") === c);
      pair.hidden = !visible;
      if (visible) { shown += 1; }
    });
    count.textContent = shown + " of " + pairs.length + " pairs shown";
  }

  function openAll(open) {
    pairs.forEach(function (pair) { if (!pair.hidden) { pair.open = open; } });
  }

  [model, category, outcome].forEach(function (el) { el.addEventListener("change", apply); });
  document.getElementById("f-open").addEventListener("click", function () { openAll(true); });
  document.getElementById("f-close").addEventListener("click", function () { openAll(false); });
  function fragment() {
    // the address is anyone's to write: a fragment that is no valid escape (#%) is taken as it is
    var raw = location.hash.slice(1);
    try { return decodeURIComponent(raw); } catch (e) { return raw; }
  }

  if (location.hash.length > 1) {
    var target = document.getElementById(fragment());
    if (target && target.tagName === "DETAILS") { target.open = true; }
  }
  apply();
})();
