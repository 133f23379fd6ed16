#!/usr/bin/env python3
"""`tcp_relay.py LISTEN_PORT TARGET_PORT`: relays every TCP connection to 127.0.0.1:LISTEN_PORT to
127.0.0.1:TARGET_PORT, all in this one process. make soak puts it between the services and the
real OpenSearch node: its cluster fault kills this process (every connection dies with it and the
port refuses new ones, as a dead node's would) and starts it again on the same port, which the
node itself cannot do (the harness gives every start a new port). Standard library only."""

import asyncio
import sys


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def main(listen_port, target_port):
    async def relay(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))

    server = await asyncio.start_server(relay, "127.0.0.1", listen_port, reuse_address=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: tcp_relay.py LISTEN_PORT TARGET_PORT")
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
