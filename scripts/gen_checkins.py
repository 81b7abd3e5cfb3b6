#!/usr/bin/env python3
"""Generates examples/checkins.csv: 2000 simulated venue check-ins in Paris (the demo's directional data).

Each row: id, visited_at (UTC timestamp), lat, lon (degrees), venue. Venues are 40 fixed points drawn around
the city centre (48.8566 N, 2.3522 E) within about 6 km; a check-in is at a venue plus ~50 m of GPS jitter.
Visit times mix three habits: lunch (von Mises around 12:30, ~45 min spread), evening (around 19:30, ~1.5 h)
and a uniform background (20 %). Dates run over May 2024. Deterministic (seeded); needs only the standard
library. Run from the repository root: python3 scripts/gen_checkins.py > examples/checkins.csv
"""
import math
import random

rng = random.Random(20240501)
CENTRE = (48.8566, 2.3522)
KM_PER_DEG_LAT = 111.2
KINDS = ["cafe", "restaurant", "museum", "gym", "bar", "bakery", "library", "cinema"]


def offset(lat, lon, north_km, east_km):
    return lat + north_km / KM_PER_DEG_LAT, lon + east_km / (KM_PER_DEG_LAT * math.cos(math.radians(lat)))


venues = []
for v in range(40):
    r = 6.0 * math.sqrt(rng.random())
    a = rng.uniform(0, 2 * math.pi)
    lat, lon = offset(*CENTRE, r * math.cos(a), r * math.sin(a))
    venues.append((lat, lon, KINDS[v % len(KINDS)]))


def visit_hours():
    u = rng.random()
    if u < 0.45:
        h = 12.5 + rng.vonmisesvariate(0, 1.0 / (0.75 * math.pi / 12) ** 2) * 12 / math.pi
    elif u < 0.8:
        h = 19.5 + rng.vonmisesvariate(0, 1.0 / (1.5 * math.pi / 12) ** 2) * 12 / math.pi
    else:
        h = rng.uniform(0, 24)
    return h % 24


print("id,visited_at,lat,lon,venue")
for i in range(2000):
    lat, lon, kind = rng.choice(venues)
    lat, lon = offset(lat, lon, rng.gauss(0, 0.05), rng.gauss(0, 0.05))
    secs = int(visit_hours() * 3600) % 86400
    day = rng.randint(1, 31)
    stamp = f"2024-05-{day:02d}T{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}Z"
    print(f"{i + 1},{stamp},{lat:.6f},{lon:.6f},{kind}")
