//! FNV-1a, 32 bits: what a server keeps of a text it must recognise later but need
//! not hold (a task's input request names, the schema a compiled plan belongs to).
//! Not a defence against a chosen collision: every use also checks what it can.

/// The 32-bit FNV-1a hash of `bytes` (a `const fn`: plans hash their schema at
/// compile time).
///
/// ```
/// assert_eq!(emcp::wire::hash::fnv1a(b""), 0x811c_9dc5);
/// assert_eq!(emcp::wire::hash::fnv1a(b"a"), 0xe40c_292c);
/// ```
pub const fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h = 0x811c_9dc5u32;
    let mut rest = bytes;
    while let [b, tail @ ..] = rest {
        h = (h ^ *b as u32).wrapping_mul(0x0100_0193);
        rest = tail;
    }
    h
}
