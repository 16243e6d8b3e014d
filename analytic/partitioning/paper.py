"""Figure 1's setting and the rows of ``analytic reproduce`` for Ghaderi, Shakkottai & Srikant."""

from __future__ import annotations

from analytic.partitioning.model import Cluster, GraphJob

#: Figure 1: three machines with four slots each.
FIGURE1_CLUSTER = Cluster([4, 4, 4])

#: Figure 1's five-node graph. The drawing did not survive extraction; this is a Storm-like
#: topology (a spout 0 feeding bolts 1 and 2, joined by bolt 3, which feeds sink 4).
FIGURE1_JOB = GraphJob(5, [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)], arrival_rate=1.0, service_rate=1.0, name="Figure 1")
