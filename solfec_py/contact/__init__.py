"""Contact detection (layer 5): geometric objects of the bodies, broad and narrow phase,
and the per-step update / insertion of CONTACT constraints. Reference: docs/contact.md.

Entry point for the step driver: `detect(domain)` at the mid-step configuration.
"""
from solfec_py.contact.detect import detect

__all__ = ["detect"]
