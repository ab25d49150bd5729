use super::failure::Outcome;
use super::named::Named;
use super::params::Params;
use super::result::Ttl;
use super::Server;
use super::MAX_DESCRIPTORS;
use crate::device::Device;
use crate::device::Exchange;
use crate::device::PromptGet;
use crate::device::ReadError;
use crate::wire::error::DispatchError;
use crate::wire::json::JsonWriter;
use crate::wire::json::Kind;
use crate::wire::json::Sink;

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    // With `input` (kilobyte waits, sealed state) not inlined into `dispatch`: its
    // call and buffers take the stack only while it runs, not on top of every other
    // method's. Without, inlining is smaller and the frames small anyway.
    #[cfg_attr(feature = "input", inline(never))]
    pub(super) fn get_prompt<'a>(
        &mut self,
        p: &Params<'a>,
        ex: Exchange<'a>,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        let (index, args) = self.find(p, Named::Prompt)?;
        if let Some(a) = args {
            if a.kind() != Kind::Object || a.members().any(|(_, v)| v.kind() != Kind::String) {
                return Err(
                    DispatchError::InvalidParams("Prompt arguments must be strings").into(),
                );
            }
        }
        let declared = (0..MAX_DESCRIPTORS).map_while(|j| self.device.prompt_argument(index, j));
        for arg in declared.filter(|a| a.required) {
            if args.and_then(|a| a.get(arg.name)).is_none() {
                return Err(DispatchError::MissingPromptArgument.into());
            }
        }
        // The 2026-07-28 input the request brings (feature `input`).
        let mut state_buf = [0u8; super::input::STATE_BUF];
        let opened = self.open_input(p, ex, Named::Prompt, index, &mut state_buf)?;
        let mut get = PromptGet::new(JsonWriter::new(out), ex, index, args);
        Self::fill_prompt_input(&mut get, opened);
        let result = self.device.get_prompt(&mut get);
        let written = get.written();
        match result {
            Err(ReadError::NotFound) if !written => return Err(DispatchError::UnknownPrompt.into()),
            Err(ReadError::Failed) if !written => {
                return Err(DispatchError::Internal("Failed to get prompt").into());
            }
            _ => {}
        }
        get.close();
        self.seal_prompt_state(&mut get);
        self.end_result(&mut get.w, ex.era, Ttl::None);
        if result.is_err() && out.rollback() {
            return Err(DispatchError::Internal("Failed to get prompt").into());
        }
        Ok(())
    }
}
