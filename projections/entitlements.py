"""What a step left unused, said when `next` leaves it, as ruling R3's "carried over, unspent" says of CP at
2.3 (issue 27 item 10): the 3.44 Battlefield Promotions and the 3.45 leader results not taken are lost.
And what a decided roll allows while the step still stands (issue 37 item 9: `sync` says it)."""
from __future__ import annotations

from cg.pbem import AHEAD, left_over, may_commit_ahead, result_allows
from cg.state import SIDES
from cg.sequence import StepId


def unused_after(st, left: str, sides=SIDES) -> list[str]:
    """Lines for the entitlements the step `left` gave and nobody used (`st`: the state after leaving it)."""
    out = []
    for side in sides:
        if left not in (StepId.PROMOTIONS, StepId.LEADERS):
            continue
        more, allowed, used = left_over(st, left, side)
        if more > 0 and left == StepId.PROMOTIONS:
            out.append(f"left unused (3.44): {side} could have Battle Hardened {more} more MMC "
                       f"(the dr allowed {allowed}, {used} hardened); lost at `next`")
        elif more > 0:
            out.append(f"left unused (3.45): {side} could have hardened or generated {more} more "
                       f"leader(s) (the dr allowed {allowed}); lost at `next`")
    return out


def allowed_now(st, side: str) -> list[str]:
    """Ruling R111: what SIDE's decided 3.44 or 3.45 roll still lets it do at this step, before its `next`. Ruling
    R121: the later RePh rolls it may commit now, ahead of their steps, to travel in this bundle."""
    names = may_commit_ahead(st, side)
    out = [f"ahead of their steps, your {', '.join(AHEAD[n][0] for n in names)} roll(s) may go in this bundle"
           f" (ruling R121): {', '.join(f'plcg {n} {side}' for n in names)}"] if names else []
    return _result_allows(st, side) + out


def _result_allows(st, side: str) -> list[str]:
    more = result_allows(st, side)
    if more <= 0:
        return []
    allowed = left_over(st, st.step, side)[1]
    if st.step == StepId.PROMOTIONS:
        return [f"your 3.44 dr allows {more} more MMC to Battle Harden (of {allowed}): plcg harden {side} UNIT"]
    return [f"your 3.45 result allows {more} more leader(s) to harden or be generated (of {allowed}): "
            f"plcg harden {side} LEADER, plcg leader {side} --generated"]
