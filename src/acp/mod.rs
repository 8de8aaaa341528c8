//! The Agent Client Protocol: versions, capabilities, methods, negotiation and sessions.
