"""The PL 2.5 sequence's step ids (shared/docs/pl25-sequence.md): `StepId`, one member per step, 2.1 to
3.52, and `END` once the CG has ended (1.3, 1.5).

A `str` enum whose values are the ids the log, the snapshot and the digest have always held ("2.1" ...
"3.52", "end"): a member is equal to its stored string and hashes like it, prints as it, and orjson
writes it as it, so a stored "2.3" and `StepId.PURCHASE` are one key. The steps themselves (name, rule,
what each owes, accepts and records when left) are `cg/steps/`, and their order is the order they are
declared in there (the members' order here says nothing); the machine is `cg/machine.py`. The ids are
declared here, below the state (`Position.step` is a StepId), because the steps read the state.

The members below are the steps this release shipped with, named where the rules' code names them (cg/seal.py,
cg/pbem.py, cg/rules/). A step added later declares its id in its own module, `X = StepId.declare("X", "3.435")`:
a member like these (equal to its stored string, `step_id` gives it, `Position.step` holds it), made when its
step's module is imported, before any fold (cg/evolve.py imports cg.steps); nothing outside its module names it.
"""
from __future__ import annotations

import enum
from typing import cast


class StepId(enum.StrEnum):
    CP = "2.1"  # CP Replenishment
    WEATHER = "2.2"  # At Start Weather
    PURCHASE = "2.3"  # Purchasing Reinforcements
    DETERMINATION = "2.4"  # Firefight Determination
    MLR_REDEPLOYMENT = "2.5"  # Redeployment of Units in Friendly MLR
    SETUP = "2.6"  # Firefight Setup
    PATROLS = "2.7"  # Patrols
    COMMENCEMENT = "2.8"  # Firefight Commencement
    FIREFIGHT_END = "2.9"  # CG Firefight End
    BATTLE_END = "3.1"  # End of the Battle Phase
    REDEPLOYMENT = "3.2"  # Redeployment Phase
    CONSEQUENCES = "3.3"  # Consequences Phase
    DISEASE = "3.41"  # Disease & Starvation
    REGROUPING = "3.42"  # Regrouping
    HEROES = "3.43"  # Heroes and Heroic Leaders
    PROMOTIONS = "3.44"  # Bravery and Battlefield Promotions
    LEADERS = "3.45"  # Leader Generation/Improvement
    REPAIR = "3.46"  # Unjamming Guns, Replenishing Ammo, Mobilizing Vehicles
    RECALL = "3.461"  # Removing Stun, Reclaiming Recalled Vehicles
    ELR = "3.47"  # ELR Loss/Gain
    SAN = "3.51"  # SAN Adjustment
    CLEARANCE = "3.52"  # Fortification Clearance
    END = "end"  # CG End (1.3)

    @classmethod
    def declare(cls, name: str, value: str) -> StepId:
        """A step's id declared in its own module (a step added after these): a member of the enum as if
        written above, equal to its stored string `value` and found by `step_id`, `StepId(value)` and
        `StepId[name]`. Declaring an id already declared returns its member; a name or value of another
        member is refused."""
        known = cls._member_map_.get(name)
        if known is not None and known.value == value:
            return cast(StepId, known)
        if known is not None or value in cls._value2member_map_:
            raise ValueError(f"step id {name}={value!r}: the name or the value is another step's")
        member = str.__new__(cls, value)
        member._name_, member._value_ = name, value
        member.__objclass__ = cls  # type: ignore[attr-defined]
        member._sort_order_ = len(cls._member_names_)  # type: ignore[attr-defined]
        cls._member_map_[name] = member
        cls._member_names_.append(name)
        cls._value2member_map_[value] = member
        type.__setattr__(cls, name, member)  # StepId.NAME, as a member written above is reached
        return member


_OF = StepId._value2member_map_  # a stored id -> its member, without Enum's __call__


def step_id(value):
    """The member of a stored step id ("2.1" ... "end"); any other value as it is (a log or snapshot no
    release wrote may name a step no release knows: the fold keeps it, as it always did, and the
    step owes nothing and accepts nothing)."""
    return _OF.get(value, value)
