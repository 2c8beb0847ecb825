"""The web side of the daemon (docs/web.md): a live view of the board, a page per seat for
hidden cards, and a PIN-guarded referee console, served by aiohttp in the daemon's own loop.

- :mod:`tavola.web.view`: the state shown (pure): the board as SVG, the move list, clocks;
- :mod:`tavola.web.pages`: the HTML pages (pure, every text escaped);
- :mod:`tavola.web.auth`: PIN login, its rate limit, the referee's sessions and CSRF tokens;
- :mod:`tavola.web.referee`: the referee's actions, each through the session;
- :mod:`tavola.web.qr`: the seat pages' addresses as QR codes (terminal text, SVG);
- :mod:`tavola.web.server`: the aiohttp routes and the server-sent event stream.
"""
