//! `HOST:PORT` as the relay names its own addresses and checks a request's `Host`.

use std::net::{IpAddr, SocketAddr};

/// `127.0.0.1:8765`, `[::1]:8765`.
pub fn host_port(ip: IpAddr, port: u16) -> String {
    match ip {
        IpAddr::V4(v4) => format!("{v4}:{port}"),
        IpAddr::V6(v6) => format!("[{v6}]:{port}"),
    }
}

/// Whether `host` is an IP literal with `port` (any address, for a relay bound to all).
pub fn ip_literal_with_port(host: &str, port: u16) -> bool {
    host.parse::<SocketAddr>().is_ok_and(|a| a.port() == port)
}
