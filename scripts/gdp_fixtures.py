"""Reference values for the Gaussian-DP (epsilon, delta) curve and the analytic Gaussian calibration, from
Google's dp-accounting package. The Rust tests read the JSON this writes; they need no Python.

    python3 -m venv /tmp/dpacc && /tmp/dpacc/bin/pip install dp-accounting==0.6.0
    /tmp/dpacc/bin/python scripts/gdp_fixtures.py > crates/manifold-dp/tests/fixtures/gdp_dp_accounting.json

mu-GDP is the Gaussian mechanism with sensitivity / standard deviation = mu, so delta(eps) is
GaussianPrivacyLoss(standard_deviation=1/mu, sensitivity=1).get_delta_for_epsilon(eps).
"""
import json
import importlib.metadata as md

from dp_accounting.pld import privacy_loss_mechanism as plm
from dp_accounting.pld import common

MUS = [0.05, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0]
EPSILONS = [0.0, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0]
DELTAS = [1e-2, 1e-3, 1e-6, 1e-9, 1e-12]

curve = []
for mu in MUS:
    loss = plm.GaussianPrivacyLoss(standard_deviation=1.0 / mu, sensitivity=1.0)
    for eps in EPSILONS:
        delta = float(loss.get_delta_for_epsilon(eps))
        if delta > 1e-300:
            curve.append({"mu": mu, "epsilon": eps, "delta": delta})

calibration = []
for eps in [0.1, 0.5, 1.0, 2.0, 5.0]:
    for delta in [1e-3, 1e-6, 1e-9]:
        guarantee = common.DifferentialPrivacyParameters(eps, delta)
        loss = plm.GaussianPrivacyLoss.from_privacy_guarantee(guarantee, sensitivity=1.0)
        calibration.append({"epsilon": eps, "delta": delta, "sigma": float(loss.standard_deviation)})

print(json.dumps({
    "source": f"dp-accounting {md.version('dp-accounting')} (pld.privacy_loss_mechanism.GaussianPrivacyLoss)",
    "gdp_curve": curve,
    "analytic_gaussian_sigma": calibration,
}, indent=1))
