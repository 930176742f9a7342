package dev.sendlog.tools.http;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One keep-alive HTTP/1.1 connection of the load generators (closed and open loop): writes a POST with the caller's
 * headers, reads the status and the whole body (Content-Length or chunked), without the cost of a general client in the
 * figures. Not thread-safe: one request at a time; {@link #close()} may come from another thread to abort one.
 */
public final class Http1Connection implements AutoCloseable {
    private final String host;
    private final int port;
    private final int readTimeoutMillis;
    private volatile Socket socket;
    private InputStream in;
    private OutputStream out;
    private long idleSinceNanos = System.nanoTime();

    /** To {@code base}'s host and port; a read waiting longer than {@code readTimeoutMillis} fails (0: never). */
    public Http1Connection(URI base, int readTimeoutMillis) {
        this.host = base.getHost();
        this.port = base.getPort() < 0 ? 80 : base.getPort();
        this.readTimeoutMillis = readTimeoutMillis;
    }

    public boolean isOpen() {
        return socket != null;
    }

    /** Since the end of its last request (or its creation). */
    public long idleNanos() {
        return System.nanoTime() - idleSinceNanos;
    }

    /** Sends a POST with an {@code Authorization} header and returns the status; the body goes to {@code body}. */
    public int post(String path, String authorization, byte[] payload, ByteArrayOutputStream body) throws IOException {
        return post(path, Map.of("Authorization", authorization), payload, body);
    }

    /**
     * Sends a POST with {@code headers} and returns the status; the body goes to {@code body} (read and dropped when
     * null).
     */
    public int post(String path, Map<String, String> headers, byte[] payload, ByteArrayOutputStream body)
            throws IOException {
        if (socket == null) {
            connect();
        }
        StringBuilder head = new StringBuilder(256)
                .append("POST ")
                .append(path)
                .append(" HTTP/1.1\r\nHost: ")
                .append(host)
                .append(':')
                .append(port)
                .append("\r\nContent-Type: application/json\r\nContent-Length: ")
                .append(payload.length)
                .append("\r\n");
        headers.forEach(
                (name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("\r\n");
        try {
            out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
            out.write(payload);
            out.flush();
            int status = readResponse(body);
            idleSinceNanos = System.nanoTime();
            return status;
        } catch (IOException | RuntimeException e) {
            close();
            throw e instanceof IOException io ? io : new IOException(e);
        }
    }

    private void connect() throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress(host, port), 5_000);
        s.setSoTimeout(readTimeoutMillis);
        in = new BufferedInputStream(s.getInputStream(), 8 * 1024);
        out = s.getOutputStream();
        socket = s;
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
            for (long size = chunkSize(); size > 0; size = chunkSize()) {
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

    private long chunkSize() throws IOException {
        String size = line();
        if (size == null) {
            throw new IOException("connection closed inside a chunked body");
        }
        return Long.parseLong(size.split(";")[0].trim(), 16);
    }

    private void copy(long n, ByteArrayOutputStream body) throws IOException {
        byte[] buffer = new byte[1024];
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
        Socket s = socket;
        socket = null;
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                // Closing a broken connection: nothing left to release.
            }
        }
    }
}
