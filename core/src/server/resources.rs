use super::failure::ErrorData;
use super::failure::Failure;
use super::failure::Key;
use super::failure::Outcome;
use super::result::Ttl;
use super::Server;
use super::MAX_DESCRIPTORS;
use super::MAX_URI_LEN;
use crate::device::Device;
use crate::device::Exchange;
use crate::device::ReadError;
use crate::device::ResourceRead;
use crate::device::Target;
use crate::wire::error::DispatchError;
use crate::wire::json::JsonWriter;
use crate::wire::json::Sink;
use crate::wire::json::Str;

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    // With `input` (kilobyte waits, sealed state) not inlined into `dispatch`: its
    // call and buffers take the stack only while it runs, not on top of every other
    // method's. Without, inlining is smaller and the frames small anyway.
    #[cfg_attr(feature = "input", inline(never))]
    pub(super) fn read_resource<'a>(
        &mut self,
        raw_uri: Str<'a>,
        ex: Exchange<'a>,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        let not_found = Failure {
            error: DispatchError::ResourceNotFound { era: ex.era },
            data: ErrorData::Text(Key::Uri, raw_uri),
        };
        let mut buf = [0u8; MAX_URI_LEN];
        // A resource's URI is its descriptor's text, equal to the decoded one (not
        // decoded into `buf`, nor checked as UTF-8 again); one no longer than the
        // buffer, as a decoded URI is.
        let named = (0..MAX_DESCRIPTORS)
            .map_while(|i| self.device.resource(i))
            .position(|r| raw_uri.eq_str(r.uri))
            .and_then(|i| Some((i, self.device.resource(i)?.uri)))
            .filter(|(_, u)| u.len() <= MAX_URI_LEN);
        let (target, template, uri) = match named {
            Some((i, u)) => (Target::Resource(i), None, u),
            None => {
                let uri = match raw_uri.unescape_into(&mut buf) {
                    Ok(u) => u,
                    Err(_) => return Err(not_found),
                };
                let (i, t) = (0..MAX_DESCRIPTORS)
                    .map_while(|i| self.device.resource_template(i))
                    .enumerate()
                    .find(|(_, t)| crate::model::template::matches(t.uri_template, uri))
                    .ok_or(not_found)?;
                (Target::Template(i), Some(t.uri_template), uri)
            }
        };
        let mut read = ResourceRead::new(JsonWriter::new(out), ex, uri, target, template);
        let result = self.device.read_resource(&mut read);
        let failed_late = result.is_err() && read.written();
        match result {
            Err(ReadError::NotFound) if !read.written() => return Err(not_found),
            Err(ReadError::Failed) if !read.written() => {
                return Err(DispatchError::Internal("Failed to read resource").into());
            }
            _ => {}
        }
        read.close();
        self.end_result(&mut read.w, ex.era, Ttl::Read);
        // Failed after writing: a sink that can take the line back gets -32603 instead;
        // on a stream the partial contents were already sent and stand.
        if failed_late && out.rollback() {
            return Err(DispatchError::Internal("Failed to read resource").into());
        }
        Ok(())
    }
}
