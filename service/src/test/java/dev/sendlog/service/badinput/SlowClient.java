package dev.sendlog.service.badinput;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A client that sends the start of a request (headers, perhaps part of the body) and then nothing more, keeping its
 * connection open: the slow or stalled client a server must not wait for with a thread.
 */
final class SlowClient implements AutoCloseable {
    private final Socket socket;

    private SlowClient(Socket socket) {
        this.socket = socket;
    }

    /** Connects and sends {@code start}, leaving the connection open with the rest of the request unsent. */
    static SlowClient open(String baseUrl, String start) {
        String hostPort = baseUrl.replaceFirst("^http://", "").replaceFirst("/.*$", "");
        Socket socket = new Socket();
        try {
            socket.connect(
                    new InetSocketAddress(
                            hostPort.substring(0, hostPort.lastIndexOf(':')),
                            Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1))),
                    5000);
            SlowClient client = new SlowClient(socket);
            client.send(start);
            return client;
        } catch (IOException e) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // nothing to do
            }
            throw new UncheckedIOException(e);
        }
    }

    /** Sends {@code start} and reads the answer that comes without the rest of the request (within 10 s). */
    static RawResponse sendHeadersOnly(String baseUrl, String start) {
        try (SlowClient client = open(baseUrl, start)) {
            return client.response(10_000);
        }
    }

    void send(String more) {
        try {
            OutputStream out = socket.getOutputStream();
            out.write(more.getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether the server has sent anything yet (an answer, or the end of the connection), without waiting. */
    boolean answered() {
        try {
            return socket.getInputStream().available() > 0;
        } catch (IOException e) {
            return true;
        }
    }

    /** The server's answer, waiting at most {@code timeoutMs} for it. */
    RawResponse response(int timeoutMs) {
        try {
            socket.setSoTimeout(timeoutMs);
            return RawHttp.readResponse(new BufferedInputStream(socket.getInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException("no answer", e);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
