"""The replication lab: a primary, its replicas, lag and failover."""

from simulators.labs.replication.lab import ReplicationLab

__all__ = ["ReplicationLab"]
