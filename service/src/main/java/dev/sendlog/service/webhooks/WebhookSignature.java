package dev.sendlog.service.webhooks;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code Sendlog-Signature} header of a webhook delivery (API.md, "Status webhooks"):
 * {@code t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">}, one {@code v1=} per secret that signs (two during
 * a rotation, the current one first). The timestamp is signed with the body so that a captured delivery cannot be
 * replayed as new later: a receiver refuses a {@code t} too far from its clock. Pure: the delivery worker
 * ({@link WebhookWorker}) signs with it, tests and clients verify with it.
 */
public final class WebhookSignature {
    public static final String HEADER = "Sendlog-Signature";
    /** At most this many {@code v1=} values are read when verifying: a header is bounded like everything else. */
    private static final int MAX_SIGNATURES = 8;

    private WebhookSignature() {}

    /** The header's value for a body sent at {@code unixSeconds}, signed with each of {@code secrets} in order. */
    public static String header(long unixSeconds, byte[] body, List<WebhookSecret> secrets) {
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException("a delivery is signed with at least one secret");
        }
        StringBuilder out = new StringBuilder("t=").append(unixSeconds);
        for (WebhookSecret secret : secrets) {
            out.append(",v1=").append(HexFormat.of().formatHex(mac(secret, unixSeconds, body)));
        }
        return out.toString();
    }

    /**
     * Whether {@code header} carries a {@code v1=} signature of {@code body} by {@code secret}, with a {@code t} within
     * {@code toleranceSeconds} of {@code nowUnixSeconds}. Compares in constant time; a malformed header is false.
     */
    public static boolean verify(
            String header, byte[] body, WebhookSecret secret, long nowUnixSeconds, long toleranceSeconds) {
        if (header == null || header.length() > 64 + MAX_SIGNATURES * 68) {
            return false;
        }
        Long t = null;
        int signatures = 0;
        boolean match = false;
        for (String part : header.split(",", MAX_SIGNATURES + 2)) {
            String item = part.trim();
            if (item.startsWith("t=") && t == null) {
                try {
                    t = Long.parseLong(item.substring(2));
                } catch (NumberFormatException e) {
                    return false;
                }
            } else if (item.startsWith("v1=")) {
                if (++signatures > MAX_SIGNATURES || t == null) {
                    return false;
                }
                byte[] given;
                try {
                    given = HexFormat.of().parseHex(item.substring(3));
                } catch (IllegalArgumentException e) {
                    continue;
                }
                match |= MessageDigest.isEqual(given, mac(secret, t, body));
            }
        }
        return t != null && match && Math.abs(nowUnixSeconds - t) <= toleranceSeconds;
    }

    private static byte[] mac(WebhookSecret secret, long unixSeconds, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.key(), "HmacSHA256"));
            mac.update((unixSeconds + ".").getBytes(StandardCharsets.US_ASCII));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
