"""accept_marketplace_terms: a marketplace plan's terms accepted for the subscription, only for a spec that says
`accept_terms: true` (the workflow never calls it otherwise). Reads the terms first and writes only when they are
not accepted yet, so a second creation attempt (or machine) costs one GET."""

from azure.mgmt.marketplaceordering import models as mm

from activities.arm import classified, log, log_start
from activities.clients import AzureClients
from models.spec import MachineSpec

OFFER_TYPE = "virtualmachine"


async def accept_terms(clients: AzureClients, spec: MachineSpec) -> str:
    """What was done, in one line ("accepted ..." or "already accepted ...")."""
    plan = spec.plan
    if plan is None or not spec.accept_terms:  # a guard: the caller checks this already
        return "no plan terms to accept"
    assert clients.marketplace is not None, "build_clients makes the marketplace client"
    agreements = clients.marketplace.marketplace_agreements
    what = f"the terms of plan {plan.name} (offer {plan.product}, publisher {plan.publisher})"
    async with classified(f"read {what}"):
        terms: mm.AgreementTerms = await agreements.get(OFFER_TYPE, plan.publisher, plan.product, plan.name)
    if terms.accepted:
        log(spec.name, "%s are accepted already", what)
        return f"already accepted {what}"
    log_start(spec.name, "accepting %s (accept_terms: true)", what)
    terms.accepted = True
    async with classified(f"accept {what}"):
        await agreements.create(OFFER_TYPE, plan.publisher, plan.product, plan.name, terms)
    return f"accepted {what}"
