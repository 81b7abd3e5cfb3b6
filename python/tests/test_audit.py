"""The auditor from Python: a true claim passes, a negative control (Bingham with κ = 4ε claimed at ε) is
flagged; both seeded, with the auditor's stated false-alarm bound alpha = 1e-6."""

import pytest

import manifold_dp as mdp


def test_a_true_claim_passes_and_a_false_one_is_flagged():
    ok = mdp.audit("so3", "laplace", epsilon=1.0, samples=30_000, seed=1)
    bad = mdp.audit("so3", "control:bingham-4eps", epsilon=1.0, samples=30_000, seed=1)
    assert ok["verdict"] != bad["verdict"]
    # A typed report: attributes, with every key of `audit --json` in .report.
    assert isinstance(ok, mdp.AuditReport) and ok.verdict == ok.report["verdict"] == "no_violation_found"
    assert bad.verdict == "violation" and bad.violating is not None and bad.epsilon == 1.0
    assert bad["epsilon_lower_bound"] > 1.0 >= ok["epsilon_lower_bound"]


def test_every_space_the_cli_audits_is_audited_from_python_too():
    """The native module parses the space as the CLI does: ``real`` raised a PanicException before (a hand-written
    map of spaces), and an unknown space is a BadInputError, not a crash."""
    real = mdp.audit("real", "laplace", epsilon=1.0, samples=5_000, seed=2)
    assert real["verdict"] == "no_violation_found"
    with pytest.raises(mdp.BadInputError):
        mdp.audit("torus", "laplace", epsilon=1.0, samples=5_000, seed=2)
