//! What the two clients share: a server process listening on a free loopback port, and
//! the handshake rmcp makes for a protocol revision.

use std::time::{Duration, Instant};

use rmcp::model::ProtocolVersion;
use rmcp::service::{RoleClient, RunningService, Service};
use rmcp::{ClientLifecycleMode, ClientServiceExt};

/// How long the handshake (and, in the binaries, any request) may take.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// A server started as `BINARY FLAG 127.0.0.1:PORT` on a free port, once it accepts
/// connections; killed when dropped.
pub struct Listening {
    child: std::process::Child,
    /// Its MCP endpoint.
    pub url: String,
}

impl Listening {
    /// Start `binary` with `flag` (`--http` for the boards, `--listen` for the
    /// conformance server) and wait up to 10 s for it to listen.
    pub fn start(binary: &str, flag: &str) -> Result<Self, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        let addr = format!("127.0.0.1:{port}");
        let child = std::process::Command::new(binary)
            .args([flag, &addr])
            .stdin(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {binary}: {e}"))?;
        let mut server = Listening {
            child,
            url: format!("http://{addr}/mcp"),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(&addr).is_err() {
            let exited = server.child.try_wait().ok().flatten().is_some();
            if exited || Instant::now() > deadline {
                return Err(format!("{binary} never listened on {addr}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(server)
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The handshake for `version` over `transport`: `server/discover` from 2026-07-28 on,
/// `initialize` before (the version itself comes from the client's `get_info`).
pub async fn connect<S, T, E, A>(
    client: S,
    transport: T,
    version: &ProtocolVersion,
) -> Result<RunningService<RoleClient, S>, String>
where
    S: Service<RoleClient> + rmcp::ClientHandler,
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let lifecycle = match version.has_initialize() {
        false => ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        },
        true => ClientLifecycleMode::Initialize,
    };
    tokio::time::timeout(
        REQUEST_TIMEOUT,
        client.serve_with_lifecycle(transport, lifecycle),
    )
    .await
    .map_err(|_| "no answer to the handshake in time".to_string())?
    .map_err(|e| format!("handshake failed: {e}"))
}
