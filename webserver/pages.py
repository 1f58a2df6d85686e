"""The HTML of ``stacks web``: the table list, a table's page (textual-serve's terminal
client, from its own static folder), and the pages that say why a table can't be shown.

Every URL is relative, so the pages work behind a reverse proxy, at the root or under a
path (docs/deploy.md). Nothing is fetched from anywhere but this server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from netplay.lobby import TableInfo

LIST_REFRESH_S = 5
"""The table list reloads itself this often."""

_STYLE = """
html, body { margin: 0; background: #0c181f; color: #e8eef2;
  font-family: "Roboto Mono", Menlo, Monaco, monospace; }
main { max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.4rem; } a { color: #7fd1ff; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #24404f; }
.note { color: #9fb3bf; }
.words { font-size: 1.1rem; margin: 2rem 0; }
"""

_FONTS = """
@font-face { font-family: "Roboto Mono"; font-style: normal;
  src: url("{static}fonts/RobotoMono-VariableFont_wght.ttf"); }
@font-face { font-family: "Roboto Mono"; font-style: italic;
  src: url("{static}fonts/RobotoMono-Italic-VariableFont_wght.ttf"); }
"""


def _page(title: str, body: str, *, static: str, head: str = "") -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{escape(title)}</title>\n"
        f"<style>{_FONTS.replace('{static}', static)}{_STYLE}</style>\n{head}"
        f"</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def table_list(tables: Sequence[TableInfo], *, watching: Mapping[str, int], used: int,
               cap: int, where: str, games: bool = False) -> str:
    """The broker's tables, each a link to watch it, reloaded every few seconds (with
    ``games``: and links to the database's pages, `webserver.community_pages`)."""
    rows = []
    for info in tables:
        seated = ", ".join(info.seated) or "nobody yet"
        lock = " (password)" if info.password else ""
        if info.offline:
            status = "offline: its host is gone"
            name = escape(info.table)
        else:
            status = escape(info.status)
            name = f"<a href=\"table/{escape(info.table)}\">{escape(info.table)}</a>"
        here = watching.get(info.table, 0)
        rows.append(
            f"<tr data-table=\"{escape(info.table)}\"><td>{name}{escape(lock)}</td>"
            f"<td>{status}</td><td>{escape(seated)}</td>"
            f"<td>{info.players - info.free} of {info.players}</td>"
            f"<td>{here}</td></tr>"
        )
    if rows:
        listing = (
            "<table><thead><tr><th>table</th><th>status</th><th>players</th>"
            "<th>seats taken</th><th>watching here</th></tr></thead><tbody>\n"
            + "\n".join(rows) + "\n</tbody></table>"
        )
    else:
        listing = "<p class=\"words\">No table is open right now. This page looks again " \
                  f"every {LIST_REFRESH_S} seconds.</p>"
    places = f"{used} of {cap} browser spectator places in use."
    if used >= cap:
        places += " The page is full: a table opens again when someone leaves."
    body = (
        "<main>\n<h1>Sequence Stacks: tables to watch</h1>\n"
        + (_GAMES_LINKS if games else "") +
        f"<p class=\"note\">Tables on {escape(where)}. Open one to watch it as a spectator: "
        "you see what every spectator sees, no hand but what is face up.</p>\n"
        f"{listing}\n<p class=\"note\" id=\"places\">{escape(places)}</p>\n</main>"
    )
    head = f"<meta http-equiv=\"refresh\" content=\"{LIST_REFRESH_S}\">\n"
    return _page("Sequence Stacks: tables", body, static="static/", head=head)


_GAMES_LINKS = (
    "<nav class=\"note\">Leaderboards: <a href=\"leaderboard?game=stacks\">Sequence "
    "Stacks</a> · <a href=\"leaderboard?game=sequence\">classic Sequence</a> · "
    "<a href=\"games\">Recent games</a> (each a replay) · "
    "<a href=\"api/openapi.json\">API</a></nav>\n"
)


def words(title: str, text: str, *, back: str | None = "../") -> str:
    """A page that only says something (a full page, a table that has ended)."""
    link = f"<p><a href=\"{escape(back)}\">All tables</a></p>" if back is not None else ""
    body = (f"<main>\n<h1>{escape(title)}</h1>\n<p class=\"words\" id=\"words\">"
            f"{escape(text)}</p>\n{link}\n</main>")
    return _page(title, body, static="../static/")


# The terminal page. textual-serve's client (static/js/textual.js) connects at window load
# to the websocket named by the terminal element's data-session-websocket-url; the
# socket is wrapped so that the words the server closes it with are shown on the page.
# The client fits its terminal to the window; here the table's view has one size for
# every visitor, so the terminal is made that size and its font scaled to fit the window
# (the client's `fit`, caught as the client stores its fit addon, is replaced).
_TERMINAL_HEAD = """<link rel="stylesheet" href="../static/css/xterm.css">
<style>
html, body { overflow: hidden; }
#terminal { position: absolute; top: 0; left: 0; width: 100vw; height: 100vh; }
#closed { display: none; position: absolute; inset: 0; z-index: 10;
  align-items: center; justify-content: center; background: rgba(12, 24, 31, .92); }
body.-closed #closed { display: flex; }
#connecting { position: absolute; inset: 0; z-index: 5; display: flex;
  align-items: center; justify-content: center; font-size: 1.2rem; color: #9fb3bf; }
body.-connected #connecting, body.-closed #connecting { display: none; }
#closed div { max-width: 40rem; padding: 2rem; background: #12232d; text-align: center; }
</style>
<script>
(() => {
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      // "Connecting…" until the terminal's first frame (the table's screen).
      this.addEventListener("message", () => {
        document.body.classList.add("-connected");
      }, { once: true });
      this.addEventListener("close", (event) => {
        const words = document.getElementById("closed-words");
        if (words && event.reason) { words.textContent = event.reason; }
      });
    }
  };
  const FONT = "'Roboto Mono', Monaco, 'Courier New', monospace";
  function cell() {
    // One cell of the terminal's font at 100px: width, and height of a line.
    const probe = document.createElement("span");
    probe.style.cssText = "position:absolute;visibility:hidden;white-space:pre;" +
      "line-height:normal;font-size:100px;font-family:" + FONT;
    probe.textContent = "W".repeat(50);
    document.body.appendChild(probe);
    const box = probe.getBoundingClientRect();
    probe.remove();
    return [box.width / 5000, box.height / 100];
  }
  function fitTable(terminal, element) {
    const cols = Number(element.dataset.cols), rows = Number(element.dataset.rows);
    const [width, height] = cell();
    let size = Math.min(element.clientWidth / (cols * width),
                        element.clientHeight / (rows * height));
    size = Math.max(4, Math.floor(size * 4) / 4);
    // A row is a whole number of pixels (rounded up): step down until all rows fit.
    while (size > 4 && rows * Math.ceil(size * height) > element.clientHeight) {
      size -= 0.25;
    }
    if (terminal.options.fontSize !== size) { terminal.options.fontSize = size; }
    if (terminal.cols !== cols || terminal.rows !== rows) { terminal.resize(cols, rows); }
  }
  Object.defineProperty(Object.prototype, "fitAddon", {
    configurable: true,
    set(value) {
      Object.defineProperty(this, "fitAddon", {
        value, writable: true, configurable: true, enumerable: true,
      });
      if (this.terminal && this.element) {
        delete Object.prototype.fitAddon;
        const client = this;
        client.fit = () => fitTable(client.terminal, client.element);
        document.fonts.ready.then(() => client.fit());
      }
    },
  });
})();
</script>
<script src="../static/js/textual.js"></script>
"""


def terminal(table: str, *, screen: tuple[int, int] = (120, 40),
             back: str | None = "../") -> str:
    """A table's page: the spectator interface, in textual-serve's terminal client, at
    the table's ``screen`` size (columns, rows), its font scaled to fit the window."""
    link = f"<p><a href=\"{escape(back)}\">All tables</a></p>" if back is not None else ""
    cols, rows = screen
    body = (
        f"<div id=\"terminal\" class=\"textual-terminal\" data-font-size=\"16\" "
        f"data-cols=\"{cols}\" data-rows=\"{rows}\"></div>\n"
        f"<div id=\"connecting\"><p>Connecting to table {escape(table)}…</p></div>\n"
        "<div id=\"closed\"><div><p class=\"words\" id=\"closed-words\">The view has "
        f"closed.</p><p><a href=\"\">Watch again</a></p>{link}</div></div>\n"
        "<script>\n(() => {\n"
        f"  const url = new URL({_js(table + '/ws')}, window.location.href);\n"
        "  url.protocol = window.location.protocol === \"https:\" ? \"wss:\" : \"ws:\";\n"
        "  url.search = \"\";\n"
        "  document.getElementById(\"terminal\").dataset.sessionWebsocketUrl = url.href;\n"
        "})();\n</script>"
    )
    return _page(f"{table}: Sequence Stacks", body, static="../static/", head=_TERMINAL_HEAD)


def _js(text: str) -> str:
    """``text`` as a JavaScript string literal (a checked table name: no quotes in it)."""
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"").replace("<", "\\u003c") + "\""
