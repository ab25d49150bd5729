//! Facts of MQTT 5 named on more than one side of emcp: the device's transport
//! (`transport::mqtt`, feature `mqtt`) and the bridge's gateway, which speaks MQTT
//! with a codec of its own and builds emcp without that feature. Nothing here reads
//! or writes a packet.

/// What a CONNACK's refusal means, for the two reason codes a login meets (MQTT 5,
/// 3.2.2.2): `None` for any other code.
///
/// ```
/// use emcp::wire::mqtt::refusal_reason;
/// assert_eq!(refusal_reason(0x86), Some("bad user name or password"));
/// assert_eq!(refusal_reason(0x87), Some("not authorized"));
/// assert_eq!(refusal_reason(0x80), None);
/// ```
pub fn refusal_reason(code: u8) -> Option<&'static str> {
    match code {
        0x86 => Some("bad user name or password"),
        0x87 => Some("not authorized"),
        _ => None,
    }
}
