//! The local page's slot in the daemon's state: which page serves, if any. The page itself is
//! `ui/`.

use std::sync::Mutex;

use stanley_core::Cancel;

/// The page while it serves.
pub(crate) struct Serving {
    pub(crate) url: String,
    pub(crate) port: u16,
    pub(crate) stop: Cancel,
}

/// The page's slot in the daemon: empty until `stanleyctl ui`, empty again after it idles out.
#[derive(Default)]
pub(crate) struct UiSlot(pub(crate) Mutex<Option<Serving>>);

impl UiSlot {
    /// Empties the slot if it still holds the page serving on `port`.
    pub(crate) fn clear(&self, port: u16) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if slot.as_ref().is_some_and(|s| s.port == port) {
            *slot = None;
        }
    }
}
