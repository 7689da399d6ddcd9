// plcg serve: the seq shown beside the history slider follows it while it is dragged; moving it
// (the change event, on release) asks the page for that seq through htmx (page.html).
document.addEventListener("input", function (e) {
  if (e.target && e.target.id === "history") {
    var out = document.getElementById("at-shown");
    if (out) { out.textContent = e.target.value; }
  }
});
