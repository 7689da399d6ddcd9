"""What a command recorded, as `plcg` prints it after the command (issue 33 item 5: out of cli.py): each event
in words in seq order, what the acting player sealed (ruling R47), the steps left as one line (where the
campaign now stands), the CP carried over (ruling R3) and the 3.44 / 3.45 results lost unused."""
from __future__ import annotations

from cg.pbem import side_of_key
from cg.rules import END_CVP_CHECK, conventions
from cg.sequence import StepId
from cg.steps import BY_ID
from events.text import shown
from projections.entitlements import unused_after
from projections.words import generation_why, summary


def recorded_json(stored) -> list[dict]:
    return [{"seq": s.seq, "type": s.type, "summary": summary(s.type, s.payload), **(
        {"roll": s.payload["roll"]} if isinstance(s.payload.get("roll"), dict) else {})} for s in stored]


def recorded_lines(stored, sealed: dict | None, st, key) -> list[str]:
    """`[seq] words` lines of `stored` (the events a command recorded), `sealed` the events it sealed by seq,
    `st` the state after it, `key` the acting player's (a copy by email says only his own side's)."""
    lines = [(s.seq, summary(s.type, s.payload)) for s in stored if s.type != "step_left"]
    if sealed:  # ruling R47: what the acting player sealed, in his words
        lines += [(seq, f"{summary(t, p)} (sealed: the other side sees it when the rules reveal it)")
                  for seq, evs in sealed.items() for t, p in evs]
    moved = [s for s in stored if s.type == "step_left"]
    if moved:
        lines.append((moved[-1].seq, "the CG has ended" if st.ended else
                      f"now at step {st.step} {BY_ID[st.step].name} (firefight {st.firefight})"))
        own = side_of_key(st.pbem, key) if st.pbem and key is not None else None
        if any(s.payload.get("step") == StepId.PURCHASE for s in moved) and not st.ended:
            # ruling R3: unspent CP carry over to the next RePh (2.1)
            # (a side whose CP this copy does not know, e.g. sealed in play by email, is left out)
            # (in a play-by-email copy, only the acting player's own: the other's CP are his secret, 2.3)
            carried = ", ".join(f"{side} {sd.cp} CP" for side, sd in st.sides.items()
                                if isinstance(sd.cp, int) and (not st.pbem or side == own))
            if carried:
                lines.append((moved[-1].seq, f"carried over, unspent (ruling R3): {carried}"))
        if not st.ended:  # 3.44 / 3.45 results nobody used are lost: said, as R3 says of CP (issue 27 item 10)
            sides = [s for s in ("axis", "allied") if not st.pbem or (key is not None and own == s)]
            lines += [(m.seq, text) for m in moved for text in unused_after(st, m.payload.get("step"), sides)]
    return [f"[{seq}] {shown(text)}" for seq, text in sorted(lines, key=lambda x: x[0])]


def end_lines(st, cmd: dict, stored) -> list[str]:
    """`end`'s last words: the units' CVP as the end found them in `st` (issue 38), and the head witness to
    note or post (`plcg audit --witness` catches a log cut or rewritten before it)."""
    out = []
    if stored and conventions(st, END_CVP_CHECK):
        from cg.commands.firefight_end import cvp_words  # lazy: only `plcg end`

        out += cvp_words(st, cmd)
    if stored:
        out.append(f"head witness {stored[-1].seq}:{stored[-1].hash[:16]}")
    return out


def leaders_lines(state_after, stored) -> list[str]:
    """`leaders`: why fewer leaders than the dr's result (the leaders lost, the MMC on board)."""
    rolled = [s.payload for s in stored if s.type == "leaders_rolled" and isinstance(s.payload.get("roll"), dict)]
    if not rolled:
        return []
    from cg.commands.reorganization import generation_limits  # lazy: cg.commands (~33 ms), only `plcg leaders`

    p = rolled[-1]
    why = generation_why(p["roll"]["outcome"], *generation_limits(state_after(), p["side"]))
    return [f"  {why}"] if why else []
