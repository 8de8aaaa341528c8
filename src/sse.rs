//! Server-Sent Events as the WHATWG HTML standard parses them (§9.2.6): lines end in CRLF,
//! LF or CR; `data` lines join with "\n"; `id` sets the last event id unless it holds NUL;
//! `retry` takes ASCII digits only; a line starting with `:` is a comment; a blank line
//! dispatches. Incremental: chunks may split anywhere, even between CR and LF.

/// How long to wait before reconnecting to a stream that named no `retry`.
pub const DEFAULT_RETRY_MS: u64 = 1000;
/// The least wait before a reconnection, whatever `retry` a server names: a server that says
/// `retry: 0` and ends its stream must not have the client reconnect in a busy loop.
pub const MIN_RETRY_MS: u64 = 250;

/// One dispatched event. `event` is "message" unless the stream named another type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
    /// The stream's last event id after this event (ids persist until changed).
    pub id: Option<String>,
}

/// Why a stream cannot be read further.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SseError {
    /// One event (or one line) grew past the limit without ending.
    TooLarge { limit: usize },
}

#[derive(Debug)]
pub struct SseDecoder {
    line: String,
    data: String,
    event: String,
    last_id: Option<String>,
    retry_ms: Option<u64>,
    /// The previous chunk ended in CR: an LF starting the next one belongs to it.
    after_cr: bool,
    started: bool,
    limit: usize,
}

impl SseDecoder {
    /// `limit`: the most bytes one event may hold while it is being read.
    pub fn new(limit: usize) -> Self {
        SseDecoder {
            line: String::new(),
            data: String::new(),
            event: String::new(),
            last_id: None,
            retry_ms: None,
            after_cr: false,
            started: false,
            limit,
        }
    }

    /// The id of the last event seen (sent back as `Last-Event-ID` to resume).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The reconnection time the stream asked for with `retry:`.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// Feeds a chunk; returns the events it completed. Once an event outgrows the limit, this
    /// and every later chunk are refused, read no further and held no more: what outgrew it
    /// stays, which marks the stream unreadable.
    pub fn feed(&mut self, mut chunk: &str) -> Result<Vec<SseEvent>, SseError> {
        if self.too_large() {
            return Err(SseError::TooLarge { limit: self.limit });
        }
        let mut out = Vec::new();
        if !self.started && !chunk.is_empty() {
            self.started = true;
            chunk = chunk.strip_prefix('\u{feff}').unwrap_or(chunk);
        }
        if self.after_cr {
            self.after_cr = false;
            chunk = chunk.strip_prefix('\n').unwrap_or(chunk);
        }
        // A byte scan: both ends of a line are ASCII, so where either stands is a character
        // boundary. `str::find` with a set of chars decodes every character on the way, about
        // half of a large event's time in the module.
        while let Some(end) = chunk.bytes().position(|b| b == b'\r' || b == b'\n') {
            self.line.push_str(crate::text::part(chunk, ..end));
            let crlf = crate::text::part(chunk, end..).starts_with("\r\n");
            if chunk.as_bytes()[end] == b'\r' && end + 1 == chunk.len() {
                self.after_cr = true;
            }
            chunk = crate::text::part(chunk, end + if crlf { 2 } else { 1 }..);
            let line = std::mem::take(&mut self.line);
            if let Some(event) = self.process(&line) {
                out.push(event);
            }
        }
        self.line.push_str(chunk);
        if self.too_large() {
            return Err(SseError::TooLarge { limit: self.limit });
        }
        Ok(out)
    }

    fn too_large(&self) -> bool {
        self.line.len() + self.data.len() > self.limit
    }

    fn process(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            "id" if !value.contains('\0') => self.last_id = Some(value.to_string()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry_ms = value.parse().ok();
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = std::mem::take(&mut self.event);
        if self.data.is_empty() {
            return None;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop();
        let event = if event.is_empty() {
            "message".to_string()
        } else {
            event
        };
        Some(SseEvent {
            event,
            data,
            id: self.last_id.clone(),
        })
    }
}

/// One event as a server writes it: `id`, then `data` split over lines at every CRLF, LF or
/// bare CR, as readers split them (no line break can leak into a field or end the event),
/// then the blank line.
pub fn encode_event(id: Option<&str>, event: Option<&str>, data: &str) -> String {
    let mut out = String::with_capacity(data.len() + 32);
    if let Some(id) = id {
        out.push_str("id: ");
        out.push_str(&id.replace(['\r', '\n', '\0'], ""));
        out.push('\n');
    }
    if let Some(event) = event {
        out.push_str("event: ");
        out.push_str(&event.replace(['\r', '\n'], ""));
        out.push('\n');
    }
    let mut rest = data;
    loop {
        let end = rest.find(['\r', '\n']).unwrap_or(rest.len());
        out.push_str("data: ");
        out.push_str(crate::text::part(rest, ..end));
        out.push('\n');
        if end == rest.len() {
            break;
        }
        let step = 1 + usize::from(crate::text::part(rest, end..).starts_with("\r\n"));
        rest = crate::text::part(rest, end + step..);
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(chunks: &[&str]) -> Vec<SseEvent> {
        let mut d = SseDecoder::new(1 << 20);
        chunks.iter().flat_map(|c| d.feed(c).unwrap()).collect()
    }

    /// `text` in two chunks, cut at every character boundary, reads as `whole`.
    fn read_the_same_cut_anywhere(text: &str, whole: &[SseEvent]) {
        for cut in (0..text.len()).filter(|&c| text.is_char_boundary(c)) {
            assert_eq!(all(&[&text[..cut], &text[cut..]]), whole, "cut at {cut}");
        }
    }

    fn ev(event: &str, data: &str, id: Option<&str>) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
            id: id.map(Into::into),
        }
    }

    #[test]
    fn events_split_anywhere_read_the_same() {
        let text = "\u{feff}: comment\nid: 7\nevent: message\ndata: {\"a\":\r\ndata: 1}\r\n\r\ndata:x\r\rdata: y\n\n";
        let whole = all(&[text]);
        assert_eq!(
            whole,
            vec![
                ev("message", "{\"a\":\n1}", Some("7")),
                ev("message", "x", Some("7")),
                ev("message", "y", Some("7"))
            ]
        );
        read_the_same_cut_anywhere(text, &whole);
    }

    #[test]
    fn lines_of_any_script_end_where_their_ascii_ends_are() {
        // Multi-byte characters next to every kind of line end, cut at every boundary.
        let text = "data: é\r\ndata: 日本\rdata: 😀\nid: ü\n\ndata:\u{85}\u{2028}x\n\n";
        let whole = all(&[text]);
        assert_eq!(
            whole,
            vec![
                ev("message", "é\n日本\n😀", Some("ü")),
                ev("message", "\u{85}\u{2028}x", Some("ü"))
            ]
        );
        read_the_same_cut_anywhere(text, &whole);
    }

    #[test]
    fn retry_takes_digits_only_and_id_persists() {
        let mut d = SseDecoder::new(1 << 20);
        // A priming event: an id and one empty data line (an event with empty data).
        assert_eq!(
            d.feed("retry: 1x\nid: a\ndata: \n\n").unwrap(),
            vec![ev("message", "", Some("a"))]
        );
        assert_eq!(d.retry_ms(), None);
        assert_eq!(d.last_event_id(), Some("a"));
        assert!(
            d.feed("retry: 250\nid: b\0c\n\n").unwrap().is_empty(),
            "no data: nothing dispatched"
        );
        assert_eq!((d.retry_ms(), d.last_event_id()), (Some(250), Some("a")));
        assert_eq!(
            d.feed("event: endpoint\ndata: /m?s=1\n\n").unwrap(),
            vec![ev("endpoint", "/m?s=1", Some("a"))]
        );
        assert_eq!(
            d.feed("data\n\n").unwrap(),
            vec![ev("message", "", Some("a"))]
        );
    }

    #[test]
    fn an_event_that_never_ends_is_refused_at_the_limit() {
        let mut d = SseDecoder::new(64);
        assert!(d.feed(&"data: 0123456789\n".repeat(3)).is_ok());
        assert_eq!(
            d.feed(&"data: 0123456789\n".repeat(3)),
            Err(SseError::TooLarge { limit: 64 })
        );
        let mut d = SseDecoder::new(64);
        assert!(d.feed(&"x".repeat(65)).is_err(), "one endless line");
        // Refused from there on, holding no more: the line's end and a new event read nothing.
        let held = d.line.len() + d.data.len();
        assert!(d.feed("\n\ndata: {}\n\n").is_err());
        assert!(d.feed(&"data: more\n".repeat(100)).is_err());
        assert_eq!(d.line.len() + d.data.len(), held);
    }

    #[test]
    fn a_bare_cr_splits_data_like_lf_and_crlf() {
        // JSON may carry a bare CR as whitespace; it must neither cut the message nor end the event.
        let text = encode_event(Some("1"), None, "{\"a\":\r1,\r\r\"b\":2}\rid: x\r");
        assert_eq!(
            text,
            "id: 1\ndata: {\"a\":\ndata: 1,\ndata: \ndata: \"b\":2}\ndata: id: x\ndata: \n\n"
        );
        assert_eq!(
            all(&[&text]),
            vec![ev("message", "{\"a\":\n1,\n\n\"b\":2}\nid: x\n", Some("1"))]
        );
    }

    #[test]
    fn encoded_events_decode_to_themselves() {
        let text = encode_event(
            Some("s1-4\n"),
            Some("message"),
            "{\"a\":1}\nsecond\r\nthird",
        );
        assert_eq!(
            all(&[&text]),
            vec![ev("message", "{\"a\":1}\nsecond\nthird", Some("s1-4"))]
        );
    }
}
