package dev.sendlog.service.badinput;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A tiny HTTP/1.1 client over a plain socket, one connection per request ({@code Connection: close}), for the
 * requests java.net.http refuses to send: any bytes in headers, wrong or invalid Content-Length, bodies of any
 * bytes. It reads exactly one response.
 */
final class RawHttp {
    private final String host;
    private final int port;

    RawHttp(String baseUrl) {
        String hostPort = baseUrl.replaceFirst("^http://", "").replaceFirst("/.*$", "");
        this.host = hostPort.substring(0, hostPort.lastIndexOf(':'));
        this.port = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }

    RawResponse send(RawRequest request) {
        return send(request, 4096);
    }

    RawResponse send(RawRequest request, int chunkSize) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 5000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(request.bytes(chunkSize));
                out.flush();
            } catch (SocketException e) {
                // The server may answer early (413, 401) and close before it read the whole body; read that answer.
            }
            return read(new BufferedInputStream(socket.getInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException("no response to " + request, e);
        }
    }

    /** Sends the requests one after the other on one keep-alive connection; returns their answers in order. */
    List<RawResponse> sendOnOneConnection(List<RawRequest> requests) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 5000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            BufferedInputStream in = new BufferedInputStream(socket.getInputStream());
            List<RawResponse> responses = new ArrayList<>();
            for (int i = 0; i < requests.size(); i++) {
                out.write(requests.get(i).bytes(4096, i == requests.size() - 1));
                out.flush();
                responses.add(read(in));
            }
            return responses;
        } catch (IOException e) {
            throw new UncheckedIOException("no response to " + requests, e);
        }
    }

    /** Reads one response off a connection. */
    static RawResponse readResponse(InputStream in) throws IOException {
        return read(in);
    }

    private static RawResponse read(InputStream in) throws IOException {
        String statusLine = line(in);
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP status line: " + statusLine);
        }
        int status = Integer.parseInt(parts[1]);
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String h = line(in); !h.isEmpty(); h = line(in)) {
            int colon = h.indexOf(':');
            headers.computeIfAbsent(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(h.substring(colon + 1).trim());
        }
        String length = first(headers, "content-length");
        String encoding = first(headers, "transfer-encoding");
        byte[] body;
        if (encoding != null && encoding.equalsIgnoreCase("chunked")) {
            body = chunked(in);
        } else if (length != null) {
            body = in.readNBytes(Integer.parseInt(length));
        } else {
            body = in.readAllBytes();
        }
        return new RawResponse(status, headers, body);
    }

    private static byte[] chunked(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String size = line(in);
            int semicolon = size.indexOf(';');
            int n = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
            if (n == 0) {
                while (!line(in).isEmpty()) {
                    // trailers
                }
                return body.toByteArray();
            }
            body.writeBytes(in.readNBytes(n));
            line(in);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        while (true) {
            int b = in.read();
            if (b < 0) {
                if (line.size() == 0) {
                    throw new EOFException("connection closed before a complete response");
                }
                break;
            }
            if (b == '\n') {
                break;
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    private static String first(Map<String, List<String>> headers, String name) {
        List<String> values = headers.get(name);
        return values == null ? null : values.getFirst();
    }
}
