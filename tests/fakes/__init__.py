"""Test doubles that stand in for real providers (loopback HTTP servers)."""
