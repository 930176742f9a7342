package dev.sendlog.service.loadtest;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * One keep-alive HTTP/1.1 connection, as little client as a load generator needs: it writes a request and
 * reads the status and the whole body (Content-Length or chunked). The JDK's HttpClient costs about as
 * much CPU per request as the service under test; on a 2-core machine that would measure the client.
 * Public because the benchmark harness ({@code benchmarks/harness}) drives every system with it.
 */
public final class RawHttpConnection implements AutoCloseable {
    private final String host;
    private final int port;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    public RawHttpConnection(URI base) {
        this.host = base.getHost();
        this.port = base.getPort() < 0 ? 80 : base.getPort();
    }

    /** Sends a POST and returns the status; the body is read and dropped unless {@code body} is given. */
    public int post(String path, String authorization, byte[] payload, ByteArrayOutputStream body) throws IOException {
        if (socket == null) {
            connect();
        }
        String head = "POST " + path + " HTTP/1.1\r\nHost: " + host + ":" + port + "\r\nAuthorization: " + authorization
                + "\r\nContent-Type: application/json\r\nContent-Length: " + payload.length + "\r\n\r\n";
        try {
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(payload);
            out.flush();
            return readResponse(body);
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    private void connect() throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(host, port), 5_000);
        socket.setSoTimeout(30_000);
        in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
        out = socket.getOutputStream();
    }

    private int readResponse(ByteArrayOutputStream body) throws IOException {
        String status = line();
        if (status == null || !status.startsWith("HTTP/1.1 ")) {
            throw new IOException("not an HTTP/1.1 response: " + status);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        boolean closeAfter = false;
        for (String h = line(); h != null && !h.isEmpty(); h = line()) {
            int colon = h.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = h.substring(0, colon).trim();
            String value = h.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Content-Length")) {
                length = Long.parseLong(value);
            } else if (name.equalsIgnoreCase("Transfer-Encoding") && value.equalsIgnoreCase("chunked")) {
                chunked = true;
            } else if (name.equalsIgnoreCase("Connection") && value.equalsIgnoreCase("close")) {
                closeAfter = true;
            }
        }
        if (chunked) {
            for (long size = Long.parseLong(line().split(";")[0].trim(), 16);
                    size > 0;
                    size = Long.parseLong(line().split(";")[0].trim(), 16)) {
                copy(size, body);
                line();
            }
            for (String trailer = line(); trailer != null && !trailer.isEmpty(); trailer = line()) {
                // trailers carry nothing we use
            }
        } else if (length > 0) {
            copy(length, body);
        }
        if (closeAfter) {
            close();
        }
        return code;
    }

    private void copy(long n, ByteArrayOutputStream body) throws IOException {
        byte[] buffer = new byte[8192];
        long left = n;
        while (left > 0) {
            int read = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (read < 0) {
                throw new IOException("connection closed inside a body");
            }
            if (body != null) {
                body.write(buffer, 0, read);
            }
            left -= read;
        }
    }

    private String line() throws IOException {
        StringBuilder b = new StringBuilder(64);
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                int end = b.length();
                return end > 0 && b.charAt(end - 1) == '\r' ? b.substring(0, end - 1) : b.toString();
            }
            b.append((char) c);
        }
        return b.isEmpty() ? null : b.toString();
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // Closing a broken connection: nothing left to release.
            }
            socket = null;
        }
    }
}
