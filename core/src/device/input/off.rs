//! Without the `input` feature: the crate-internal names of the input side as empty
//! types, so that a request's path reads the same in every build. Nothing here is
//! public, and nothing costs a byte: the types are zero-sized and every method is a
//! constant the compiler folds away.

/// No input capabilities (nothing to ask for without `input`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Capabilities;

/// No input side of a round.
#[derive(Debug, Default)]
pub(crate) struct Input<'a>(core::marker::PhantomData<&'a ()>);

impl Input<'_> {
    /// Never asking.
    #[inline(always)]
    pub(crate) fn asking(&self) -> bool {
        false
    }
}
