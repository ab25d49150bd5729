//! The suite's reference image and audio clip, kept as the base64 text the suite
//! gives and decoded at compile time: the device holds plain bytes in flash, and a
//! content block base64-encodes them again as it writes them.

/// A 1×1 red PNG (the suite's reference image), base64.
pub const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A tiny WAV clip (the suite's reference audio), base64.
pub const WAV_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The PNG's bytes.
pub const PNG: [u8; decoded_len(PNG_BASE64)] = decode(PNG_BASE64);
/// The WAV clip's bytes.
pub const WAV: [u8; decoded_len(WAV_BASE64)] = decode(WAV_BASE64);

/// How many bytes padded standard base64 text decodes to.
const fn decoded_len(b64: &str) -> usize {
    let b = b64.as_bytes();
    let n = b.len();
    let pad = (n >= 1 && b[n - 1] == b'=') as usize + (n >= 2 && b[n - 2] == b'=') as usize;
    n / 4 * 3 - pad
}

/// The 6 bits one base64 character stands for (padding counts as zero bits).
const fn sextet(c: u8) -> u32 {
    (match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        b'=' => 0,
        _ => panic!("not standard base64"),
    }) as u32
}

/// Padded standard base64 decoded; only ever evaluated at compile time, where bad
/// input stops the build.
const fn decode<const N: usize>(b64: &str) -> [u8; N] {
    let b = b64.as_bytes();
    assert!(b.len().is_multiple_of(4) && decoded_len(b64) == N);
    let mut out = [0u8; N];
    let (mut i, mut o) = (0, 0);
    while i < b.len() {
        let n =
            sextet(b[i]) << 18 | sextet(b[i + 1]) << 12 | sextet(b[i + 2]) << 6 | sextet(b[i + 3]);
        let group = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        let mut k = 0;
        while k < 3 && o < N {
            out[o] = group[k];
            o += 1;
            k += 1;
        }
        i += 4;
    }
    out
}
