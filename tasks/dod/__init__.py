"""Draw-or-Decline (DoD): edit feasible requests, decline infeasible ones (see README.md)."""
