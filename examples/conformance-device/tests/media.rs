//! The compile-time decoding of the reference media gives the bytes a base64 library
//! gives.

use base64::Engine as _;
use conformance_device::media;

fn decoded(b64: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("reference media is valid base64")
}

#[test]
fn png_is_the_reference_image() {
    assert_eq!(media::PNG[..], decoded(media::PNG_BASE64)[..]);
    assert_eq!(media::PNG[..8], *b"\x89PNG\r\n\x1a\n");
}

#[test]
fn wav_is_the_reference_clip() {
    assert_eq!(media::WAV[..], decoded(media::WAV_BASE64)[..]);
    assert_eq!(media::WAV[..4], *b"RIFF");
}
