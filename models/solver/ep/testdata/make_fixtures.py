#!/usr/bin/python3
"""Reference values for the stable normal helpers of models/solver/ep.

Run once with /usr/bin/python3 (python3-mpmath); writes normal.json.
log Phi(z) and N(z)/Phi(z) at 60 significant digits, printed as float64.
"""
import json, os
import mpmath as mp

mp.mp.dps = 60
zs = [-1e6, -1e4, -1000, -200, -100, -50, -40, -38.5, -37, -30, -20, -10, -8, -6,
      -5.0001, -5, -4.9999, -4.5, -3, -2, -1, -0.5, -1e-8, 0, 1e-8, 0.3, 1, 2, 3, 5,
      6, 8, 10, 20, 37, 40]
rows = []
for z in zs:
    zz = mp.mpf(z)
    phi = mp.ncdf(zz)
    n = mp.npdf(zz)
    lp = mp.log1p(-mp.ncdf(-zz)) if z > 0 else mp.log(phi)  # no rounding of Phi to 1
    rows.append({"z": z, "logphi": float(lp), "ratio": float(n / phi)})
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "normal.json")
with open(out, "w") as f:
    json.dump(rows, f, indent=1)
print("wrote", out, len(rows))
