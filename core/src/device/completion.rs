//! [`Completion`]: a `completion/complete` request, values out.

use crate::wire::json::JsonWriter;
use crate::wire::json::Str;

/// What a completion request refers to.
#[derive(Clone, Copy, Debug)]
pub enum Reference<'a> {
    /// A prompt (index).
    Prompt(usize),
    /// A resource template (index) or resource URI.
    Resource(Str<'a>),
}

/// Most completion values one result holds (the spec's limit).
pub const MAX_COMPLETIONS: usize = 100;

/// A `completion/complete` in progress.
pub struct Completion<'a> {
    pub(crate) w: JsonWriter<'a>,
    pub(crate) reference: Reference<'a>,
    pub(crate) argument: Str<'a>,
    pub(crate) value: Str<'a>,
    pub(crate) count: usize,
}

impl<'a> Completion<'a> {
    /// What is being completed.
    pub fn reference(&self) -> Reference<'a> {
        self.reference
    }
    /// The argument's name.
    pub fn argument(&self) -> Str<'a> {
        self.argument
    }
    /// What the user typed so far.
    pub fn value(&self) -> Str<'a> {
        self.value
    }
    /// Offer one value; returns false (and drops it) past [`MAX_COMPLETIONS`].
    pub fn offer(&mut self, value: &str) -> bool {
        if self.count >= MAX_COMPLETIONS {
            return false;
        }
        self.w.str(value);
        self.count += 1;
        true
    }
}
