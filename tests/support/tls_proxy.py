"""An mTLS front for a plain Temporal dev server, as a production cluster has one: it demands a client
certificate from the CA, speaks h2 (gRPC) and forwards the decrypted bytes. Runs on its own thread."""

import asyncio
import contextlib
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from tests.support.certs import Pki


@dataclass
class MtlsProxy:
    pki: Pki
    upstream_port: int
    port: int = 0
    client_names: list[str] = field(default_factory=list)  # CNs of the client certificates it accepted

    def _context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.pki.server_cert, self.pki.server_key)
        context.load_verify_locations(self.pki.ca)
        context.verify_mode = ssl.CERT_REQUIRED
        context.set_alpn_protocols(["h2"])
        return context

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peercert") or {}
        self.client_names += [value for rdn in peer.get("subject", ()) for key, value in rdn if key == "commonName"]
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    @contextlib.contextmanager
    def running(self) -> Iterator["MtlsProxy"]:
        loop = asyncio.new_event_loop()
        server = loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0, ssl=self._context()))
        self.port = server.sockets[0].getsockname()[1]
        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            asyncio.run_coroutine_threadsafe(_shutdown(server), loop).result(timeout=5)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=5)
            loop.close()


async def _shutdown(server: asyncio.Server) -> None:
    server.close()
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
