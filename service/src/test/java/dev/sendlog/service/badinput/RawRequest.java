package dev.sendlog.service.badinput;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One HTTP/1.1 request as bytes on the wire, so a case can say anything a client can send: headers with any
 * bytes, a body framed by Content-Length, chunked, or with a wrong or invalid length. {@code describe} names
 * what the generator did, for the failure report.
 */
record RawRequest(String method, String target, List<Header> headers, byte[] body, Framing framing, String describe) {

    /** A header as sent: the value is bytes because a value may be anything but CR and LF. */
    record Header(String name, byte[] value) {
        static Header of(String name, String value) {
            return new Header(name, value.getBytes(StandardCharsets.UTF_8));
        }

        String text() {
            return new String(value, StandardCharsets.ISO_8859_1);
        }
    }

    /** How the body is delimited. */
    enum Framing {
        /** A correct Content-Length (also for an empty body). */
        LENGTH,
        /** Transfer-Encoding: chunked, no Content-Length. */
        CHUNKED,
        /** A Content-Length smaller than the body: the rest reads as the start of another request. */
        SHORT_LENGTH,
        /** A Content-Length that is not a number. */
        INVALID_LENGTH,
        /** Two Content-Length headers that disagree. */
        TWO_LENGTHS
    }

    static Builder post(String target) {
        return new Builder("POST", target);
    }

    static Builder get(String target) {
        return new Builder("GET", target);
    }

    static Builder method(String method, String target) {
        return new Builder(method, target);
    }

    byte[] bytes(int chunkSize) {
        return bytes(chunkSize, true);
    }

    /** The request on the wire; {@code close} asks the server to close the connection after answering it. */
    byte[] bytes(int chunkSize, boolean close) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 512);
        // Host: 127.0.0.1 unless the case sends a Host of its own (the admin port's DNS-rebinding tests).
        boolean ownHost = headers.stream().anyMatch(h -> h.name().equalsIgnoreCase("Host"));
        write(
                out,
                method + " " + target + " HTTP/1.1\r\n" + (ownHost ? "" : "Host: 127.0.0.1\r\n")
                        + (close ? "Connection: close\r\n" : ""));
        for (Header h : headers) {
            write(out, h.name() + ": ");
            out.writeBytes(h.value());
            write(out, "\r\n");
        }
        switch (framing) {
            case LENGTH -> write(out, "Content-Length: " + body.length + "\r\n\r\n");
            case CHUNKED -> write(out, "Transfer-Encoding: chunked\r\n\r\n");
            case SHORT_LENGTH -> write(out, "Content-Length: " + body.length / 2 + "\r\n\r\n");
            case INVALID_LENGTH -> write(out, "Content-Length: " + body.length + "x\r\n\r\n");
            case TWO_LENGTHS ->
                write(out, "Content-Length: " + body.length + "\r\nContent-Length: " + (body.length + 1) + "\r\n\r\n");
        }
        if (framing == Framing.CHUNKED) {
            for (int at = 0; at < body.length; at += chunkSize) {
                int n = Math.min(chunkSize, body.length - at);
                write(out, Integer.toHexString(n) + "\r\n");
                out.write(body, at, n);
                write(out, "\r\n");
            }
            write(out, "0\r\n\r\n");
        } else {
            out.writeBytes(body);
        }
        return out.toByteArray();
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(method)
                .append(' ')
                .append(Text.clip(target, 300))
                .append(" [")
                .append(describe)
                .append("] framing=")
                .append(framing);
        for (Header h : headers) {
            s.append("\n  ").append(h.name()).append(": ").append(Text.clip(Text.visible(h.text()), 200));
        }
        s.append("\n  body(")
                .append(body.length)
                .append(" bytes): ")
                .append(Text.clip(Text.visible(new String(body, StandardCharsets.UTF_8)), 400));
        return s.toString();
    }

    private static void write(ByteArrayOutputStream out, String ascii) {
        out.writeBytes(ascii.getBytes(StandardCharsets.ISO_8859_1));
    }

    static final class Builder {
        private final String method;
        private final String target;
        private final List<Header> headers = new ArrayList<>();
        private byte[] body = new byte[0];
        private Framing framing = Framing.LENGTH;
        private final List<String> describe = new ArrayList<>();

        private Builder(String method, String target) {
            this.method = method;
            this.target = target;
        }

        Builder header(String name, String value) {
            headers.add(Header.of(name, value));
            return this;
        }

        Builder header(String name, byte[] value) {
            headers.add(new Header(name, value));
            return this;
        }

        Builder body(byte[] bytes) {
            this.body = bytes;
            return this;
        }

        Builder body(String text) {
            return body(text.getBytes(StandardCharsets.UTF_8));
        }

        Builder framing(Framing framing) {
            this.framing = framing;
            return this;
        }

        Builder note(String what) {
            describe.add(what);
            return this;
        }

        RawRequest build() {
            return new RawRequest(method, target, List.copyOf(headers), body, framing, String.join(", ", describe));
        }
    }
}
