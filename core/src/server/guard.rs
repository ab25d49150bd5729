use crate::wire::json::Sink;
use crate::wire::json::SinkError;

/// Passes writes through and remembers whether the sink ran full, so that a line that
/// did not fit can be taken back whole ([`Sink::rollback`]) instead of being cut. Its
/// writers tell it of a refused write ([`Sink::failed`]): every write
/// into a guard comes from a [`JsonWriter`], so a write itself is passed on without a
/// look at the answer.
pub(super) struct Guard<'a> {
    pub(super) inner: &'a mut dyn Sink,
    pub(super) full: bool,
}

impl<'a> Guard<'a> {
    /// Out of line in the plain forms: one copy is smaller than one at each use.
    #[cfg_attr(not(emcp_fast), inline(never))]
    pub(super) fn new(inner: &'a mut dyn Sink) -> Self {
        inner.mark();
        Guard { inner, full: false }
    }

    /// The guard as a sink. Out of line and not generic, so that the guard's vtable is
    /// emitted once (the generic server and this module's own functions would each
    /// carry a copy in a small image); inlined in the fast forms.
    #[cfg_attr(not(emcp_fast), inline(never))]
    pub(super) fn sink(&mut self) -> &mut dyn Sink {
        self
    }
}

impl Sink for Guard<'_> {
    /// As it is: a refusal comes back through [`Sink::failed`] (every write into a
    /// guard comes from a [`JsonWriter`]).
    fn write(&mut self, bytes: &[u8]) -> Result<(), SinkError> {
        self.inner.write(bytes)
    }

    fn failed(&mut self, error: SinkError) {
        if error == SinkError::Full {
            self.full = true;
        }
        self.inner.failed(error);
    }

    /// Taking back goes to the start of the guarded response (the guard's own mark).
    fn rollback(&mut self) -> bool {
        self.inner.rollback()
    }

    #[cfg(feature = "routes")]
    fn route(&mut self, request: Option<&[u8]>) {
        self.inner.route(request);
    }
}
