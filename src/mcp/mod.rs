//! The Model Context Protocol: versions, capabilities, methods, negotiation and sessions.
