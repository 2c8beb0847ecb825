"""tessere (:class:`TessereReader`): each quadrant's median colour is a tessera of the
nearest hue (R Y G B) when colourful and away from the board's print, a block when grey
and dark; under a lamp's veil (lighter, paler, same hue) by its hue and what chroma a veil
leaves; the token is the set of the four colours (RULES.md order), ``K`` for a block."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from .light import SHADE, Float, shade_free
from .pieces import CEILING, Prototypes, Reader, ceiling_tint

__all__ = ["TessereReader"]


class TessereReader(Reader):
    """tessere: four tesserae per checker; the token is their colour set."""

    game = "tessere"
    height = 0.12
    COLOURS: ClassVar[dict[str, tuple[float, float, float]]] = {
        # Lab of the nominal set; "board" and "grout" are what is not a tessera
        "R": (45.0, 62.0, 42.0),
        "Y": (82.0, 0.0, 78.0),
        "G": (56.0, -48.0, 44.0),
        "B": (42.0, 12.0, -50.0),
        "K": (13.0, 0.0, 0.0),
        "board": (84.0, 5.0, 20.0),
        "grout": (81.0, -1.0, 1.0),
    }
    # in shade-free Lab (vision.light.shade_free): lightness counts less than colour
    SPREAD: ClassVar[tuple[float, float, float]] = (22.0, 7.0, 7.0)
    AWAY = 14.0  # a colour this far (a, b) from the bare board's ...
    GREY = 12.0  # ... and at least this chromatic is a tessera
    DARK = 0.75  # of the way from K's lightness to the board's: darker is a block, surely
    SURE_DARK = 0.5  # ... if darker than this (between: a glossy block, or a grey coin)
    BLOWN = 92.0  # a grey this light is a glare (white balance puts paper at 92)
    BLOWN_CHROMA = 6.0
    # A lamp's reflection on a glossy tile adds white light: lightness goes up and chroma
    # down towards white (L 100), the hue stays. Under such a veil a quadrant is a tessera
    # of its hue when that hue is far from the board's (red, green, blue: the board's print
    # is yellowish however veiled) and it keeps at least half the chroma its colour keeps
    # when lightened that much (a bluish grey block mirroring the sky keeps far less).
    VEIL_HUE = 40.0  # degrees off the board's hue
    VEIL_SHARE = 0.5
    FAINT = 4.0  # the least chroma read as a colour (sensor noise and JPEG give 2-3)
    # A block is grey; the board's print keeps some yellow until a veil makes it white.
    # So a grey short of white with less yellow than this is a block under a veil.
    BLOCK_TINT = 3.0
    BLOCK_VEILED = 91.0  # ... if darker than this (near white the board's yellow is gone)
    VEILED_SURE = 0.45  # a veiled quadrant is a guess: its cell stays uncertain
    YELLOWER = 6.0  # chroma by which a yellow tessera is clearly more yellow than the print
    # The bare board seen in a picture: measured where at least two cells' quadrants show
    # it; a quadrant within LINE_NEAR (a, b) of the line from it to white is surely bare
    # board (on the 3D set 98 % of bare quadrants lie within 3: print texture, noise,
    # JPEG), beyond LINE_FAR not at all.
    BOARD_SEEN = 8
    LINE_NEAR, LINE_FAR = 4.0, 8.0

    def __init__(self, players: int = 2, params: Mapping[str, Any] | None = None,
                 start: Mapping[str, str] | None = None) -> None:
        nominal = shade_free(np.array(list(self.COLOURS.values()), np.float32))
        self.colours = Prototypes.of(dict(zip(self.COLOURS, nominal.tolist(), strict=True)),
                                     self.SPREAD)
        super().__init__(players, params, start)
        b = self.blocks
        au, av = np.abs(b.u), np.abs(b.v)
        inner = (au >= 0.07) & (au < 0.36) & (av >= 0.07) & (av < 0.36)
        self._quadrants = [inner & (np.sign(b.u) == su) & (np.sign(b.v) == sv)
                           for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))]

    def cut(self, tops: Sequence[Float]) -> list[Float]:
        """Cell blocks in shade-free Lab (pixels are compared with colours, not shades)."""
        return [shade_free(b) for b in super().cut(tops)]

    def quadrants(self, blocks: Float) -> Float:
        """(cells, 4, 3): each quadrant's median in plain Lab (L, a, b)."""
        out = np.stack([np.median(blocks[:, m], axis=1) for m in self._quadrants], axis=1)
        out[..., 1:] *= (out[..., :1] + SHADE) / 60.0  # undo shade_free: plain a, b
        result: Float = out.astype(np.float32)
        return result

    def _hues(self) -> tuple[list[str], npt.NDArray[np.float64], Float, float, float]:
        """The tesserae colours' names and hues (degrees), the board's (a, b), and
        the lightness under which a grey is a block, and surely one; from the prototypes
        (nominal or calibrated)."""
        c = self.colours.centres.copy()
        c[:, 1:] *= (c[:, :1] + SHADE) / 60.0
        index = {n: i for i, n in enumerate(self.colours.names)}
        names = [n for n in "RYGB" if n in index]
        hues = np.array([np.degrees(np.arctan2(c[index[n], 2], c[index[n], 1])) for n in names])
        board = c[index["board"]]
        k_light = c[index["K"], 0]
        dark, sure_dark = (k_light + share * (board[0] - k_light)
                           for share in (self.DARK, self.SURE_DARK))
        return names, hues, board[1:].astype(np.float32), float(dark), float(sure_dark)

    def decide(self, planes: list[Float]) -> tuple[list[str], npt.NDArray[np.float64]]:
        """Each quadrant by its colour's hue and chroma (:meth:`quadrant_tokens`); the
        token is the set of the tesserae's colours, ``K`` for a block."""
        q = self.quadrants(planes[0])
        plain = planes[0].copy()  # the blocks are shade-free: plain a, b for the tint
        plain[..., 1:] *= (plain[..., :1] + SHADE) / 60.0
        tint = ceiling_tint(plain)
        kinds, sure = self.quadrant_tokens(q.reshape(-1, 3), tint)
        seen = self._board_seen(q, kinds.reshape(len(q), 4))
        if seen is not None:
            # Read every quadrant again against the bare board as the picture shows it.
            kinds, sure = self.quadrant_tokens(q.reshape(-1, 3), tint, seen)
        kinds = kinds.reshape(len(q), 4)
        sure = sure.reshape(len(q), 4)
        names, hues, _, _, _ = self._hues()
        hue = np.degrees(np.arctan2(q[..., 2], q[..., 1]))
        gap = np.abs((hue[..., None] - hues + 180) % 360 - 180)
        chroma = np.hypot(q[..., 1], q[..., 2])
        yellowish = (np.array(names)[np.argmin(gap, axis=-1)] == "Y") & (chroma >= self.FAINT)
        tokens: list[str] = []
        confidence = np.ones(len(q))
        for i in range(len(q)):
            colours_seen = sum(k in "RYGB" for k in kinds[i])
            if colours_seen:
                # A veiled grey beside tesserae is a veiled tessera, not a block (a block is
                # grey all over): nothing to read there.
                kinds[i][kinds[i] == "k"] = "blown"
            else:
                kinds[i][kinds[i] == "k"] = "K"
            pale = (kinds[i] == "board") & yellowish[i]
            clear = True
            if colours_seen and pale.any() and not any(k in "RGB" for k in kinds[i]):
                # Yellow tesserae alone prove a checker only if clearly more yellow than
                # the print beside them (a warm light makes the print as yellow as a pale
                # yellow tessera).
                yellow = chroma[i][kinds[i] == "Y"].min()
                clear = bool(yellow >= chroma[i][pale].max() + self.YELLOWER)
            # The bare board shows no tessera's colour (its print is a pale yellowish
            # cream): one quadrant of a tessera's colour is a checker whose others a glare
            # or a veil hides.
            proof = colours_seen >= 1 and clear
            if proof:
                # Inside a checker there is no board: a quadrant read as the board's
                # yellowish print is a yellow tessera paled by a veil.
                kinds[i][pale] = "Y"
                sure[i][pale] = self.VEILED_SURE
            tile = [k for k in kinds[i] if k not in ("board", "blown")]
            board = int((kinds[i] == "board").sum())
            # A blown-out quadrant hides what is under it: with no bare board in sight, the
            # tesserae that can be seen are the checker's (doubted, as a colour may hide).
            if proof or len(tile) >= 3 or (len(tile) == 2 and board == 0):
                colours = set(tile)
                rest = [s for k, s in zip(kinds[i], sure[i], strict=True) if k in colours]
                # A quadrant not read as a tessera may hide a colour of the checker.
                confidence[i] = min(rest) * (1.0 if len(tile) == 4 else 0.3)
                if "K" in colours:
                    if colours != {"K"}:
                        confidence[i] = 0.0
                    tokens.append("K")
                elif len(colours) == 3 and (pair := _two_colours(kinds[i], sure[i])):
                    # The four-colour checker has one tessera of each colour: a colour read
                    # in two quadrants, both surer than the weakest other colour seen, makes
                    # it a two-colour one and that colour a misread (a glare's tint; doubted).
                    tokens.append(pair)
                    confidence[i] = min(float(confidence[i]), 0.3 * min(rest))
                elif len(colours) == 3:
                    # The set has no three-colour checker (RULES.md): three colours seen
                    # are the four-colour one's, its fourth hidden or misread (doubted).
                    tokens.append("RYGB")
                    confidence[i] = min(float(confidence[i]), 0.3 * min(rest))
                else:
                    tokens.append("".join(c for c in "RYGB" if c in colours))
            else:
                tokens.append("")
                bare = [s for k, s in zip(kinds[i], sure[i], strict=True) if k == "board"]
                # Empty only if it looks like the bare board (a blown-out glare, a coin or a
                # finger is something else: unsure; near the sensor's ceiling a pale yellow
                # tessera looks like the print, so one or two such quadrants are no proof).
                confidence[i] = (min(bare) if board >= 3 and not tile else 0.3 * min(bare)
                                 if board >= 2 else 0.0)
        return tokens, confidence

    def _board_seen(self, q: Float, kinds: npt.NDArray[np.str_]) -> Float | None:
        """The bare board's shade-free (a, b) near each quadrant (rows as ``q`` flattened),
        from the quadrants a first reading took for it in the cells around (not the cell
        itself), or over the whole board where too few are near; None if too few at all.
        The light's colour the white balance left in varies across the board (a lamp to
        one side, a window to the other): the board nearby is the reference."""
        free = shade_free(q)[..., 1:]
        bare = kinds == "board"
        if int(bare.sum()) < self.BOARD_SEEN:
            return None
        whole = np.median(free[bare], axis=0)
        out = np.empty((len(q), 4, 2), np.float32)
        if len(q) != len(self.cells):  # not a whole board: no neighbours to go by
            out[:] = whole
            return out.reshape(-1, 2)
        where = np.array([self.geometry.position(c) for c in self.cells])
        for i, at in enumerate(where):
            near = (np.abs(where - at).max(axis=1) == 1)[:, None] & bare
            out[i] = np.median(free[near], axis=0) if near.sum() >= self.BOARD_SEEN else whole
        return out.reshape(-1, 2)

    def quadrant_tokens(self, q: Float, tint: Float | None = None, seen: Float | None = None
                        ) -> tuple[npt.NDArray[np.str_], npt.NDArray[np.float64]]:
        """Each quadrant colour (plain Lab rows) -> ``R Y G B K``, ``board``, ``blown`` (a
        glare: nothing to read) or ``k`` (a light grey: a block under a veil if its whole
        cell is grey), with a confidence 0-1. ``tint``: the (a, b) a spot blown out to the
        sensor's ceiling reads in this picture (:func:`ceiling_tint`); ``seen``: the bare
        board's shade-free (a, b) around each quadrant in this picture (:meth:`_board_seen`).

        A lamp's reflection on a glossy tessera adds white light to its colour: lightness
        goes up and chroma down, but the hue stays. So a colour clearly away from the bare
        board's and not grey is a tessera of the nearest hue, however pale; a grey darker
        than the board is a block (``K``)."""
        names, hues, board_ab, dark, sure_dark = self._hues()
        chroma = np.hypot(q[:, 1], q[:, 2])
        away = np.hypot(q[:, 1] - board_ab[0], q[:, 2] - board_ab[1])
        # > 0: a tessera's colour (away from the board's, and colourful)
        colour = np.minimum(away - self.AWAY, chroma - self.GREY)
        hue = np.degrees(np.arctan2(q[:, 2], q[:, 1]))
        gap = np.abs((hue[:, None] - hues[None, :] + 180) % 360 - 180)
        order = np.argsort(gap, axis=1)
        rows = np.arange(len(q))
        nearest, second = gap[rows, order[:, 0]], gap[rows, order[:, 1]]
        kinds = np.full(len(q), "board", dtype="<U5")
        sure = np.ones(len(q))
        # A block's own colour (a calibrated set's may be tinted) is a block's, not a tile's.
        # Compared shade-free (vision.light.shade_free): a deep shadow on the bare board
        # shrinks its colour towards a grey, but keeps its ratio to the lightness.
        free = shade_free(q)[:, 1:]
        to = np.linalg.norm(free[:, None] - self.colours.centres[None, :, 1:], axis=2)
        k = self.colours.names.index("K")
        like_block = (q[:, 0] < dark) & (to[:, k] < self.AWAY) & (np.argmin(to, axis=1) == k)
        tile = (colour >= 0) & ~like_block
        kinds[tile] = np.array(names)[order[tile, 0]]
        sure[tile] = np.minimum(np.clip(colour[tile] / 6, 0, 1),
                                np.clip((second[tile] - nearest[tile]) / 30, 0, 1))
        veiled = ~tile & ~like_block & self._veiled(q, names, hue, order[:, 0])
        if tint is not None:  # the ceiling's tint is no tessera's colour
            veiled &= np.hypot(q[:, 1] - tint[0], q[:, 2] - tint[1]) >= self.FAINT
        kinds[veiled] = np.array(names)[order[veiled, 0]]
        sure[veiled] = self.VEILED_SURE * np.clip((chroma[veiled] - self.FAINT) / 3, 0, 1)
        tile |= veiled
        grey = ~tile
        # A block is grey, or (glossy, mirroring the sky) off the board's colour; a shadow
        # on the bare board darkens it but keeps its colour. Under a veil it is a light grey
        # with no yellow in it: the board keeps some until it is near white.
        board_dir = board_ab / max(float(np.hypot(*board_ab)), 1e-6)
        yellow = q[:, 1:] @ board_dir  # along the print's hue
        pale_block = (q[:, 0] >= dark) & (q[:, 0] < self.BLOCK_VEILED) & (
            yellow < self.BLOCK_TINT) & (chroma < self.GREY)
        block = grey & (((q[:, 0] < dark) & (like_block | (away >= self.AWAY))) | pale_block)
        kinds[block] = np.where(pale_block[block], "k", "K")
        pale_sure = self.VEILED_SURE * np.clip((self.BLOCK_TINT - yellow[block]) / 2, 0, 1)
        dark_sure = np.clip((sure_dark - q[block, 0]) / 8, 0, 1)
        sure[block] = np.where(pale_block[block], pale_sure, dark_sure)
        blown = grey & ~block & (q[:, 0] >= self.BLOWN) & (chroma < self.BLOWN_CHROMA)
        kinds[blown] = "blown"
        sure[blown] = 0.0
        bare = grey & ~block & ~blown
        sure[bare] = np.clip(-colour[bare] / 6, 0, 1)
        if seen is not None:
            # A lamp's reflection whitens the bare board from its colour in this picture
            # towards what white reads here (the ceiling's tint, neutral if nothing clips):
            # the bare board lies near that line, within its print's texture and noise.
            white = (tint if tint is not None else np.zeros(2, np.float32)) * np.float32(
                60 / (CEILING + SHADE))
            # the line in shade-free (a, b), the distance back at the quadrant's lightness
            off = _off_line(free, seen, white) * (q[:, 0] + SHADE) / 60.0
            sure[bare] = np.clip((self.LINE_FAR - off[bare]) / (self.LINE_FAR - self.LINE_NEAR),
                                 0, 1)
        return kinds, sure

    def _veiled(self, q: Float, names: list[str], hue: npt.NDArray[np.float64],
                nearest: npt.NDArray[np.intp]) -> npt.NDArray[np.bool_]:
        """Quadrants (plain Lab rows) that are a tessera paled by a lamp's reflection: of a
        hue far from the board's, and as colourful as the tessera of that hue (``nearest``:
        index into ``names``) stays when a veil lightens it to the quadrant's lightness."""
        c = self.colours.centres.copy()
        c[:, 1:] *= (c[:, :1] + SHADE) / 60.0
        index = {n: i for i, n in enumerate(self.colours.names)}
        board = c[index["board"]]
        board_hue = np.degrees(np.arctan2(board[2], board[1]))
        off = np.abs((hue - board_hue + 180) % 360 - 180) >= self.VEIL_HUE
        own = c[[index[n] for n in names]]  # the tesserae colours, in ``names`` order
        light, colourful = own[:, 0], np.hypot(own[:, 1], own[:, 2])
        # A veil lightening a colour from L to 100 takes its chroma from C to 0 (a colour
        # calibrated at the ceiling itself keeps all of it: no veil can lighten it).
        kept = colourful[nearest] * np.clip(
            (100.0 - q[:, 0]) / np.maximum(100.0 - light[nearest], 1e-6), 0, 1)
        chroma = np.hypot(q[:, 1], q[:, 2])
        out: npt.NDArray[np.bool_] = off & (chroma >= self.FAINT) & (
            chroma >= self.VEIL_SHARE * kept) & (q[:, 0] > light[nearest])  # a veil lightens
        return out

    def calibrate(self, tops: Sequence[Float], truth: Mapping[str, str],
                  skip: frozenset[str] = frozenset()) -> dict[str, Any]:
        blocks = self.cut(tops)[0]
        # Each known colour: pixels of cells holding only that colour, near the middle of
        # a quadrant; the board: empty cells.
        inner = np.zeros_like(self._quadrants[0])
        for m in self._quadrants:
            inner |= m
        rows: list[Float] = []
        labels: list[str] = []
        for i, cell in enumerate(self.cells):
            token = truth.get(cell, "")
            name = "board" if not token else token if len(token) == 1 else None
            if name is None or cell in skip:
                continue
            rows.append(np.median(blocks[i][inner], axis=0)[None])
            labels.append(name)
        if rows:
            self.colours = self.colours.fitted(np.concatenate(rows), labels)
        return {"colours": self.colours.to_dict()}

    def load(self, params: Mapping[str, Any]) -> None:
        self.colours = Prototypes.from_dict(params["colours"])


def _off_line(ab: Float, board: Float, white: Float) -> npt.NDArray[np.float64]:
    """The (a, b) distance of each row from the line from white's colour through the bare
    board's (``board``: one per row) and on beyond it: where the bare board lies under any
    veil (towards white) and unveiled (``board`` is measured over both, so it lies between)."""
    along = (white - board).astype(np.float64)
    span = np.maximum((along * along).sum(axis=1), 1e-9)
    t = np.minimum(((ab - board) * along).sum(axis=1) / span, 1)
    out: npt.NDArray[np.float64] = np.hypot(*(ab - board - t[:, None] * along).T)
    return out


def _two_colours(kinds: npt.NDArray[np.str_], sure: npt.NDArray[np.float64]) -> str:
    """A cell's quadrants reading three colours: the two-colour token if one colour is read
    in two quadrants, each surer than the weakest of the other two colours ('' if not)."""
    best = {c: float(sure[kinds == c].max()) for c in "RYGB" if (kinds == c).any()}
    for colour in best:
        reads = np.sort(sure[kinds == colour])
        if len(reads) >= 2:
            others = sorted((c for c in best if c != colour), key=best.__getitem__)
            if float(reads[-2]) > best[others[0]]:
                return "".join(c for c in "RYGB" if c in (colour, others[-1]))
    return ""
