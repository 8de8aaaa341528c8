//! Maps a request path to a file inside a served folder, and never outside it.

use std::path::{Path, PathBuf};

/// Why a path is not served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Malformed: bad percent-encoding, NUL, backslash, not UTF-8.
    BadPath,
    /// An attempt to leave the folder or reach a hidden file: `..`, `.x`, `//`, a symlink out.
    Forbidden,
    NotFound,
}

/// Decodes `%XX` escapes; `None` for a malformed escape.
pub fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

/// Resolves the raw (still percent-encoded) `request_path`, relative to `root` (canonical),
/// to an existing file under it. Every segment is checked after decoding, and the result is
/// canonicalized again so a symlink cannot lead out of `root`. A folder means its index.html.
pub fn resolve(root: &Path, request_path: &str) -> Result<PathBuf, Refusal> {
    let decoded = percent_decode(request_path).ok_or(Refusal::BadPath)?;
    let decoded = String::from_utf8(decoded).map_err(|_| Refusal::BadPath)?;
    if decoded.contains(['\0', '\\']) {
        return Err(Refusal::BadPath);
    }
    let relative = decoded.strip_prefix('/').unwrap_or(&decoded);
    let mut path = root.to_path_buf();
    let mut segments = relative.split('/').peekable();
    while let Some(segment) = segments.next() {
        let last = segments.peek().is_none();
        if segment.is_empty() && last {
            break; // a trailing slash: the folder itself
        }
        if segment.is_empty() || segment.starts_with('.') {
            return Err(Refusal::Forbidden);
        }
        path.push(segment);
    }
    let mut real = inside(root, &path)?;
    if real.is_dir() {
        real = inside(root, &real.join("index.html"))?;
    }
    if real.is_file() {
        Ok(real)
    } else {
        Err(Refusal::NotFound)
    }
}

fn inside(root: &Path, path: &Path) -> Result<PathBuf, Refusal> {
    let real = path.canonicalize().map_err(|_| Refusal::NotFound)?;
    if real.starts_with(root) {
        Ok(real)
    } else {
        Err(Refusal::Forbidden)
    }
}

/// The Content-Type for a served file; `.wasm` must be `application/wasm` for streaming compile.
pub fn content_type(path: &Path) -> &'static str {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.ends_with(".d.ts") {
        return "text/plain; charset=utf-8";
    }
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" | "md" | "ts" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding() {
        assert_eq!(percent_decode("a%2e%2E/%41"), Some(b"a../A".to_vec()));
        assert_eq!(percent_decode("%zz"), None);
        assert_eq!(percent_decode("%4"), None);
    }

    #[test]
    fn resolution_stays_inside_the_root() {
        let base =
            std::env::temp_dir().join(format!("agentwire-relay-files-{}", std::process::id()));
        let root = base.join("www");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("index.html"), "i").unwrap();
        std::fs::write(root.join("sub/a.js"), "a").unwrap();
        std::fs::write(root.join(".env"), "secret").unwrap();
        std::fs::write(base.join("outside.txt"), "o").unwrap();
        let _ = std::os::unix::fs::symlink(base.join("outside.txt"), root.join("link.txt"));
        let root = root.canonicalize().unwrap();
        let cases: &[(&str, Result<&str, Refusal>)] = &[
            ("/", Ok("index.html")),
            ("", Ok("index.html")),
            ("/index.html", Ok("index.html")),
            ("/sub/a.js", Ok("sub/a.js")),
            ("/sub/%61.js", Ok("sub/a.js")),
            ("/sub/", Err(Refusal::NotFound)),
            ("/missing", Err(Refusal::NotFound)),
            ("/../outside.txt", Err(Refusal::Forbidden)),
            ("/sub/../../outside.txt", Err(Refusal::Forbidden)),
            ("/%2e%2e/outside.txt", Err(Refusal::Forbidden)),
            ("/%2E%2E%2Foutside.txt", Err(Refusal::Forbidden)),
            ("//etc/passwd", Err(Refusal::Forbidden)),
            ("/%2Fetc%2Fpasswd", Err(Refusal::Forbidden)),
            ("/.env", Err(Refusal::Forbidden)),
            ("/link.txt", Err(Refusal::Forbidden)),
            ("/..%5coutside.txt", Err(Refusal::BadPath)),
            ("/a%00", Err(Refusal::BadPath)),
            ("/%ff", Err(Refusal::BadPath)),
            ("/%", Err(Refusal::BadPath)),
        ];
        for (path, want) in cases {
            let got = resolve(&root, path);
            let want = want.map(|p| root.join(p));
            assert_eq!(got, want, "{path}");
        }
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn content_types() {
        for (name, want) in [
            ("a.wasm", "application/wasm"),
            ("a.js", "text/javascript; charset=utf-8"),
            ("a.d.ts", "text/plain; charset=utf-8"),
            ("index.html", "text/html; charset=utf-8"),
            ("x", "application/octet-stream"),
        ] {
            assert_eq!(content_type(Path::new(name)), want);
        }
    }
}
