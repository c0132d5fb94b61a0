"""Bodies that are not rows on this rank (layer 5): the stand-in for their block, and the
bodies a deck makes during a parallel run, whose rank-0 definitions replace the other
ranks' own copies, as Solfec-1.0 creates such bodies on rank 0 and lets the others receive
them by migration (dom.c DOM_Insert_Body). A definition is the body without its state row,
constraints and loads, its material by label, pickled: a rare event.
"""
from __future__ import annotations

from solfec_py.errors import NotAvailableError


class ElsewhereBlock:
    """Stands in for the block of a body that is not a row on this rank."""

    __slots__ = ("message",)

    def __init__(self, body, rank: int):
        self.message = (f"body {body.id} is not on rank {rank} of this parallel run (HERE(solfec, body) tells"
                        " where a body lives)")

    def __getattr__(self, name):
        from solfec_py.errors import InputTypeError

        raise InputTypeError(object.__getattribute__(self, "message"))


def from_rank0(dec, made: list) -> set:
    """Rank 0's bodies of `made` (its definitions, pickled) replace the other ranks' ones;
    returns their ids."""
    domain = dec.domain
    definitions = [_definition(b) for b in sorted(made, key=lambda b: b.id)] if dec.rank == 0 else None
    definitions, top = dec.comm.bcast_object((definitions, domain.next_body_id))
    kept = {_id_of(state) for _, state in definitions}
    if dec.rank == 0:
        return kept
    for body in made:                            # the deck's own copies: rank 0's stand for them
        if body.row >= 0 and not isinstance(body.block, ElsewhereBlock):
            body.block.remove(body)
        domain.bodies.remove(body)
        domain.by_id.pop(body.id, None)
        if body.label and domain.labels.get(body.label) is body:
            del domain.labels[body.label]
        body.block = ElsewhereBlock(body, dec.rank)
        if body.id not in kept:
            body.deleted = True
    for cls, state in definitions:
        body = _replica(cls, state, domain)
        body.block = ElsewhereBlock(body, dec.rank)
        domain.bodies.append(body)
        domain.by_id[body.id] = body
        if body.label and body.label not in domain.labels:
            domain.labels[body.label] = body
    domain.bodies.sort(key=lambda b: b.id)
    domain.next_body_id = top
    return kept


SKIPPED = ("block", "row", "_constraints", "constraints", "loads", "_material_object")


def _definition(body) -> tuple:
    """(class, attributes) of a body without its state row, constraints and loads, its
    material by label: what another rank needs to hold a row of it (the state comes with
    the row)."""
    state = {k: v for k, v in body.__dict__.items() if k not in SKIPPED}
    state["bulk_material"] = body.bulk_material.label
    return type(body), state


def _id_of(state: dict) -> int:
    return int(state["_id"] if "_id" in state else state["id"])


def _replica(cls, state: dict, domain):
    """The body `_definition` described, known to `domain` but no row of it; its material
    record is the domain's one of the same label."""
    label = state["bulk_material"]
    if label not in domain.bulk_materials:
        raise NotAvailableError(f"parallel runs: body {_id_of(state)} was made on rank 0 with the bulk material"
                                f" {label!r} that the other ranks do not have; create materials on every rank")
    body = cls.__new__(cls)
    body.__dict__.update(state)
    body.bulk_material = domain.bulk_materials[label]
    body.row, body.loads = -1, []
    body.__dict__["_constraints"] = []
    body.__dict__["_material_object"] = None
    return body
