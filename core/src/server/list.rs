use super::failure::Outcome;
use super::method::Method;
use super::params::cursor_param;
use super::params::Params;
use super::result::Ttl;
use super::Server;
use super::MAX_DESCRIPTORS;
use crate::device::Device;
use crate::device::Exchange;
use crate::wire::error::DispatchError;
use crate::wire::json::JsonWriter;
use crate::wire::json::Sink;
use crate::wire::json::Value;
use crate::wire::version::Era;

pub(super) fn page(
    cursor: Option<Value<'_>>,
    count: usize,
    size: usize,
) -> Result<(usize, usize), DispatchError> {
    // Without pagination every list is one page: no cursor was ever given out.
    if !crate::features::PAGINATION {
        return match cursor {
            None => Ok((0, count)),
            Some(_) => Err(DispatchError::InvalidCursor),
        };
    }
    let start = match cursor {
        None => 0,
        Some(c) => {
            // The raw text: a cursor with an escape is no run of digits either.
            let s = c.as_str().ok_or(DispatchError::InvalidCursor)?.raw();
            if s.is_empty() || s.len() > 9 || !s.iter().all(|b| b.is_ascii_digit()) {
                return Err(DispatchError::InvalidCursor);
            }
            // At most nine digits: the value cannot overflow.
            let n = s.iter().fold(0usize, |n, b| n * 10 + usize::from(b - b'0'));
            if n > count {
                return Err(DispatchError::InvalidCursor);
            }
            n
        }
    };
    Ok((start, count.min(start.saturating_add(size.max(1)))))
}

pub(super) fn count(f: &dyn Fn(usize) -> bool) -> usize {
    (0..MAX_DESCRIPTORS)
        .find(|&i| !f(i))
        .unwrap_or(MAX_DESCRIPTORS)
}

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    /// Whether descriptor `i` of the kind `list` (a `*/list` method) walks exists and,
    /// given a writer, write it.
    pub(super) fn item(&self, list: Method, i: usize, w: Option<&mut JsonWriter<'_>>) -> bool {
        self.item_as(list, i, w, false)
    }

    /// [`Server::item`]; `execution`: a 2025-11-25 tool carries its
    /// `execution.taskSupport` (feature `tasks`).
    pub(super) fn item_as(
        &self,
        list: Method,
        i: usize,
        w: Option<&mut JsonWriter<'_>>,
        execution: bool,
    ) -> bool {
        let d = &self.device;
        match list {
            Method::ToolsList if execution && self.offers_tasks() => d
                .tool(i)
                .map(|t| w.map(|w| t.write_with_execution(w)))
                .is_some(),
            Method::ToolsList => d.tool(i).map(|t| w.map(|w| t.write(w))).is_some(),
            // A capability not compiled in lists nothing (and links no writer for it).
            #[cfg(feature = "resources")]
            Method::ResourcesList => d.resource(i).map(|t| w.map(|w| t.write(w))).is_some(),
            #[cfg(feature = "resources")]
            Method::TemplatesList => d
                .resource_template(i)
                .map(|t| w.map(|w| t.write(w)))
                .is_some(),
            #[cfg(feature = "prompts")]
            Method::PromptsList => d
                .prompt(i)
                .map(|p| {
                    let args = (0..MAX_DESCRIPTORS).map_while(|j| d.prompt_argument(i, j));
                    w.map(|w| p.write_with(w, args))
                })
                .is_some(),
            _ => false,
        }
    }

    /// A paginated `*/list` result of the descriptors [`Server::item`] walks for `list`.
    pub(super) fn list<'a>(
        &self,
        params: Option<Value<'a>>,
        p: &Params<'a>,
        ex: Exchange<'a>,
        out: &mut dyn Sink,
        list: Method,
    ) -> Outcome<'a> {
        let cursor = cursor_param(params, p);
        let total = count(&|i| self.item(list, i, None));
        let (start, end) = page(cursor, total, self.config.page_size)?;
        let mut w = JsonWriter::new(out);
        ex.begin_result(&mut w);
        super::forms::open_list(&mut w, list);
        for i in start..end {
            self.item_as(list, i, Some(&mut w), ex.era == Era::Legacy);
        }
        w.end_array();
        if end < total {
            w.key_lit("nextCursor");
            w.u64_str(end as u64);
        }
        self.end_result(&mut w, ex.era, Ttl::List);
        Ok(())
    }
}
