//! Tools and prompts found by the name a request gives.

use super::params::{Params, P_ARGUMENTS, P_NAME};
use super::{Server, MAX_DESCRIPTORS};
use crate::device::Device;
use crate::wire::error::DispatchError;
use crate::wire::json::{Str, Value};

/// The kinds of descriptor a request names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Named {
    /// A tool (`tools/call`).
    Tool,
    /// A prompt (`prompts/get`, a completion's `ref/prompt`).
    Prompt,
}

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    /// The index of the tool or prompt (`kind`) called `name`.
    pub(super) fn named(&self, kind: Named, name: Str<'_>) -> Option<usize> {
        (0..MAX_DESCRIPTORS)
            .map_while(|i| match kind {
                Named::Tool => self.device.tool_name(i),
                Named::Prompt => self.device.prompt(i).map(|p| p.name),
            })
            .position(|n| name.eq_str(n))
    }

    /// The index of the tool or prompt (`kind`) a tools/call or prompts/get names, and
    /// its `arguments` (`null` taken as none).
    pub(super) fn find<'a>(
        &self,
        p: &Params<'a>,
        kind: Named,
    ) -> Result<(usize, Option<Value<'a>>), DispatchError> {
        let (missing, unknown) = match kind {
            Named::Tool => ("tool name", DispatchError::UnknownTool),
            Named::Prompt => ("prompt name", DispatchError::UnknownPrompt),
        };
        let missing = DispatchError::MissingParam(missing);
        let name = p.0[P_NAME].and_then(|v| v.as_str()).ok_or(missing)?;
        let index = self.named(kind, name).ok_or(unknown)?;
        Ok((index, p.0[P_ARGUMENTS].filter(|a| !a.is_null())))
    }
}
