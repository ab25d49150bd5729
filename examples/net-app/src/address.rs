//! The device's own address, kept current in the policy ([`OwnHost`]): DHCP gives
//! one, renews it, may change it or lose it, and a `Host` naming the device follows.
//!
//! The task reads `Stack::config_v4` rather than awaiting `wait_config_up`: the stack
//! keeps one waker for its configuration, so two tasks waiting on it (this one and a
//! board's own `wait_config_up`) would wake each other in turn until the address
//! comes. Half a second until the first address, then once a second, is soon enough
//! for a client that just learned the address, and costs two timer wake-ups a second
//! at most.

use embassy_net::Stack;
use embassy_time::Timer;
use emcp::transport::http::OwnHost;

use crate::fmt::{log_info, log_warn};

/// How often the address is read while the device has none, and once it has one,
/// in ms.
const WAITING_MS: u64 = 500;
const HOLDING_MS: u64 = 1000;

/// Keep `own`'s address what the stack holds, and log where MCP is served whenever
/// it changes.
#[embassy_executor::task]
pub async fn watch(stack: Stack<'static>, own: &'static OwnHost, port: u16) -> ! {
    loop {
        let now = stack.config_v4().map(|c| c.address.address().octets());
        if now != own.ipv4() {
            own.set_ipv4(now);
            if let Some([a, b, c, d]) = now {
                log_info!("serving MCP at http://{}.{}.{}.{}:{}/mcp", a, b, c, d, port);
                if !own.name().is_empty() {
                    log_info!("and at http://{}.local:{}/mcp", own.name(), port);
                }
            } else {
                log_warn!("no IPv4 address: waiting for DHCP");
            }
        }
        Timer::after_millis(if now.is_some() {
            HOLDING_MS
        } else {
            WAITING_MS
        })
        .await;
    }
}
