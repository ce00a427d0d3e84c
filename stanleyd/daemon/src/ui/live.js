// Stanley's local page: live updates. The page works without this script; with it, the main
// part is replaced by the server's new rendering whenever what it shows changes (server-sent
// events from the same origin; the HTML is made and escaped by the daemon).
"use strict";
(function () {
  var address = document.body.getAttribute("data-live");
  var main = document.getElementById("main");
  var state = document.getElementById("live-state");
  if (!address || !main || !window.EventSource) {
    return;
  }
  var say = function (text) {
    if (state) {
      state.textContent = text;
    }
  };
  var source = new EventSource(address);
  source.addEventListener("open", function () {
    say("on");
  });
  source.addEventListener("error", function () {
    say("reconnecting");
  });
  source.addEventListener("page", function (event) {
    // Keep open what the reader opened.
    var open = [];
    main.querySelectorAll("details[open][id]").forEach(function (d) {
      open.push(d.id);
    });
    main.innerHTML = event.data;
    open.forEach(function (id) {
      var d = document.getElementById(id);
      if (d) {
        d.open = true;
      }
    });
    document.body.setAttribute("data-updates", String(Number(document.body.getAttribute("data-updates") || "0") + 1));
  });
})();
