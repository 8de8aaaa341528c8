#![cfg(not(target_arch = "wasm32"))]
//! The playground and the package: served with safe headers, never from outside their folders.

mod common;

use common::*;

#[test]
fn serves_the_folders_and_nothing_outside_them() {
    let dir = scratch("static");
    let www = dir.join("www");
    let pkg = dir.join("pkg");
    std::fs::create_dir_all(www.join("sub")).unwrap();
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        www.join("index.html"),
        "<!doctype html><title>playground</title>",
    )
    .unwrap();
    std::fs::write(www.join("app.js"), "export {};").unwrap();
    std::fs::write(www.join("sub/index.html"), "sub").unwrap();
    std::fs::write(www.join(".env"), "SECRET").unwrap();
    std::fs::write(pkg.join("agentwire_bg.wasm"), b"\0asm").unwrap();
    std::fs::write(dir.join("secret.txt"), "SECRET").unwrap();
    std::os::unix::fs::symlink(dir.join("secret.txt"), www.join("link.txt")).unwrap();

    let relay = Relay::start(&[
        "--agent",
        "cat",
        "--static",
        www.to_str().unwrap(),
        "--pkg",
        pkg.to_str().unwrap(),
    ]);
    let get = |path: &str| http_get(relay.port, path, &[]);

    let served = [
        (
            "/",
            "text/html; charset=utf-8",
            "<!doctype html><title>playground</title>",
        ),
        (
            "/?token=abc",
            "text/html; charset=utf-8",
            "<!doctype html><title>playground</title>",
        ),
        ("/app.js", "text/javascript; charset=utf-8", "export {};"),
        ("/sub/", "text/html; charset=utf-8", "sub"),
        ("/pkg/agentwire_bg.wasm", "application/wasm", "\0asm"),
    ];
    for (path, content_type, body) in served {
        let (status, headers, got) = get(path);
        assert_eq!(status, 200, "{path}");
        assert_eq!(
            header(&headers, "content-type"),
            Some(content_type),
            "{path}"
        );
        assert_eq!(got, body.as_bytes(), "{path}");
    }

    let (_, headers, _) = get("/");
    assert_eq!(header(&headers, "x-content-type-options"), Some("nosniff"));
    assert_eq!(header(&headers, "referrer-policy"), Some("no-referrer"));
    let csp = header(&headers, "content-security-policy").expect("a CSP");
    assert!(
        csp.contains("default-src 'self'")
            && csp.contains(&format!("ws://127.0.0.1:{}", relay.port)),
        "{csp}"
    );
    assert!(
        headers
            .iter()
            .all(|(k, _)| !k.starts_with("access-control-")),
        "no CORS headers"
    );

    let refused = [
        ("/../secret.txt", 403),
        ("/sub/../../secret.txt", 403),
        ("/%2e%2e/secret.txt", 403),
        ("/%2E%2E%2Fsecret.txt", 403),
        ("/pkg/../../secret.txt", 403),
        ("/pkg/%2e%2e/secret.txt", 403),
        ("//etc/passwd", 403),
        ("/%2Fetc%2Fpasswd", 403),
        ("/.env", 403),
        ("/link.txt", 403),
        ("/..%5csecret.txt", 400),
        ("/index.html%00", 400),
        ("/missing.js", 404),
        ("/pkg/missing.wasm", 404),
    ];
    for (path, status) in refused {
        let (got, _, body) = get(path);
        assert_eq!(got, status, "{path}");
        assert!(!String::from_utf8_lossy(&body).contains("SECRET"), "{path}");
    }

    let evil_host = http_get(relay.port, "/", &[("Host", "rebound.example")]);
    assert_eq!(evil_host.0, 403);
    let _ = std::fs::remove_dir_all(dir);
}
