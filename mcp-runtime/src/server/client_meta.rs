//! A 2026-07-28 client's capabilities and client info, read from `_meta` on every request,
//! remembered per thread as last read: a client sends the same ones with each request, and
//! reading them again from their text (a map visitor, the client's name and version copied
//! out) was about a twentieth of the cost of serving a small call. The reading is shared
//! (an `Arc`) with each request's context that uses it, not copied into it.

use std::cell::RefCell;
use std::sync::Arc;
use std::thread::LocalKey;

use serde::de::DeserializeOwned;

use crate::protocol::recent::Recent;
use crate::protocol::{ClientCapabilities, Field, Implementation};

/// The longest text remembered (longer ones are read every time), so that what a thread
/// keeps stays small.
const LONGEST: usize = 2048;

/// The last text and what it read as.
type Last<T> = RefCell<Recent<Arc<T>, 1, LONGEST>>;

thread_local! {
    static CAPABILITIES: Last<ClientCapabilities> = const { RefCell::new(Recent::new()) };
    static CLIENT_INFO: Last<Implementation> = const { RefCell::new(Recent::new()) };
}

/// `field` read as client capabilities (see [`Field::decode`]).
pub(super) fn capabilities(field: Field<'_>) -> Result<Arc<ClientCapabilities>, String> {
    remembered(&CAPABILITIES, field)
}

/// `field` read as client info (see [`Field::decode`]).
pub(super) fn client_info(field: Field<'_>) -> Result<Arc<Implementation>, String> {
    remembered(&CLIENT_INFO, field)
}

/// `field` read as a `T`: the last reading on this thread when its text is the same, else
/// read (and, if it reads, remembered). A field that was built is read as is.
fn remembered<T: DeserializeOwned>(last: &'static LocalKey<Last<T>>, field: Field<'_>) -> Result<Arc<T>, String> {
    let Field::Text(text) = field else { return field.decode().map(Arc::new) };
    // `try_with`: a thread whose locals are being torn down reads every time.
    if let Ok(Some(read)) = last.try_with(|slot| slot.borrow().find(text.as_bytes(), |_| true).map(Arc::clone)) {
        return Ok(read);
    }
    let read = Arc::new(field.decode::<T>()?);
    let _ = last.try_with(|slot| slot.borrow_mut().keep(text.as_bytes(), Arc::clone(&read)));
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_the_last_text_and_reads_any_other() {
        let first = capabilities(Field::Text(r#"{"elicitation":{}}"#)).expect("reads");
        assert!(first.elicitation.is_some());
        // The same text again: the remembered reading.
        let again = capabilities(Field::Text(r#"{"elicitation":{}}"#)).expect("reads");
        assert!(Arc::ptr_eq(&again, &first), "the remembered reading, shared");
        // Another text is read, not taken for the last one, and replaces it.
        let other = capabilities(Field::Text("{}")).expect("reads");
        assert!(other.elicitation.is_none());
        assert_eq!(capabilities(Field::Text("{}")), Ok(other));
        assert!(!Arc::ptr_eq(&capabilities(Field::Text(r#"{"elicitation":{}}"#)).expect("reads"), &first));
        // What does not read is refused every time, and not remembered.
        assert!(client_info(Field::Text(r#"{"name":1}"#)).is_err());
        assert!(client_info(Field::Text(r#"{"name":1}"#)).is_err());
        let info = client_info(Field::Text(r#"{"name":"c","version":"1"}"#)).expect("reads");
        assert_eq!((info.name.as_str(), info.version.as_str()), ("c", "1"));
        let value = serde_json::json!({"name": "d", "version": "2"});
        assert_eq!(client_info(Field::Value(&value)).map(|info| info.name.clone()), Ok("d".to_owned()));
    }
}
