//! Without the `tasks` feature no round belongs to a task: `TaskRound` has no
//! values, so `Input::task` is always `None` (and takes no room), and the task
//! branches of `Input` are removed by the compiler.

use super::{Capabilities, Capability};
use crate::wire::json::{JsonWriter, Value};

/// No task round (feature `tasks` off).
#[derive(Debug)]
pub(crate) enum TaskRound<'a> {
    #[doc(hidden)]
    _Never(core::convert::Infallible, core::marker::PhantomData<&'a ()>),
}

impl<'a> TaskRound<'a> {
    pub(super) fn response(&self, _key: &str) -> Option<Option<Value<'a>>> {
        match *self {
            TaskRound::_Never(never, _) => match never {},
        }
    }

    pub(super) fn ask(
        &mut self,
        _w: &mut JsonWriter<'_>,
        _caps: Capabilities,
        _key: &str,
        _c: Capability,
        _params: &dyn Fn(&mut JsonWriter<'_>),
        _next_id: &mut u32,
    ) -> bool {
        match *self {
            TaskRound::_Never(never, _) => match never {},
        }
    }
}
