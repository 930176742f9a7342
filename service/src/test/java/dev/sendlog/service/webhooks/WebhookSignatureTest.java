package dev.sendlog.service.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * The Sendlog-Signature header (API.md, "Status webhooks") against HMAC-SHA256 computed here with javax.crypto over the
 * exact text "<t>.<body>", keyed with the secret's text as the client holds it; rotation signs with both secrets; the
 * secret type never shows itself; stored secrets are sealed so that only the right key and tenant open them.
 */
class WebhookSignatureTest {
    private static final WebhookSecret CURRENT = secret(1);
    private static final WebhookSecret PREVIOUS = secret(2);
    private static final byte[] BODY =
            ("{\"eventId\":\"0190c6f0-0000-7000-8000-000000000001:4\",\"status\":\"DELIVERED\","
                            + "\"reference\":\"caf\u00e9\"}")
                    .getBytes(StandardCharsets.UTF_8);
    private static final long T = 1_796_000_000L;

    private static WebhookSecret secret(int fill) {
        byte[] bytes = new byte[32];
        java.util.Arrays.fill(bytes, (byte) fill);
        return WebhookSecret.of(
                "whsec_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
    }

    /** The vector, computed independently of WebhookSignature. */
    private static String hmac(String key, String signed) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(signed.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void theHeaderIsTheTimestampAndTheHmacOfTimestampDotBody() throws Exception {
        String expected = hmac(CURRENT.reveal(), T + "." + new String(BODY, StandardCharsets.UTF_8));

        String header = WebhookSignature.header(T, BODY, List.of(CURRENT));

        assertThat(header).isEqualTo("t=" + T + ",v1=" + expected);
        assertThat(expected).hasSize(64);
        assertThat(WebhookSignature.verify(header, BODY, CURRENT, T + 10, 300)).isTrue();
    }

    @Test
    void duringARotationBothSecretsSignAndEitherVerifies() throws Exception {
        String body = new String(BODY, StandardCharsets.UTF_8);

        String header = WebhookSignature.header(T, BODY, List.of(CURRENT, PREVIOUS));

        assertThat(header)
                .isEqualTo("t=" + T + ",v1=" + hmac(CURRENT.reveal(), T + "." + body) + ",v1="
                        + hmac(PREVIOUS.reveal(), T + "." + body));
        assertThat(WebhookSignature.verify(header, BODY, CURRENT, T, 300)).isTrue();
        assertThat(WebhookSignature.verify(header, BODY, PREVIOUS, T, 300)).isTrue();
        assertThat(WebhookSignature.verify(header, BODY, secret(3), T, 300))
                .as("a secret that never signed")
                .isFalse();
    }

    @Test
    void verifyRefusesAnotherBodyTimeOrShape() {
        String header = WebhookSignature.header(T, BODY, List.of(CURRENT));
        byte[] changed = BODY.clone();
        changed[3] ^= 1;
        assertThat(WebhookSignature.verify(header, changed, CURRENT, T, 300)).isFalse();
        assertThat(WebhookSignature.verify(header.replace("t=" + T, "t=" + (T + 1)), BODY, CURRENT, T, 300))
                .as("the timestamp is signed")
                .isFalse();
        assertThat(WebhookSignature.verify(header, BODY, CURRENT, T + 301, 300))
                .as("too old")
                .isFalse();
        for (String bad : new String[] {
            null,
            "",
            "v1=00",
            "t=x,v1=00",
            "t=1",
            header.replace("v1=", "v2="),
            "t=" + T + ",v1=zz",
            "t=" + T + ",v1=00".repeat(100)
        }) {
            assertThat(WebhookSignature.verify(bad, BODY, CURRENT, T, 300))
                    .as(String.valueOf(bad))
                    .isFalse();
        }
        assertThatThrownBy(() -> WebhookSignature.header(T, BODY, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSecretIsWhsecAnd32RandomBytesAndNeverShowsItself() {
        WebhookSecret a = WebhookSecret.generate();
        WebhookSecret b = WebhookSecret.generate();

        assertThat(a.reveal()).startsWith("whsec_").hasSize("whsec_".length() + 43);
        assertThat(Base64.getUrlDecoder().decode(a.reveal().substring(6))).hasSize(32);
        assertThat(a.reveal()).isNotEqualTo(b.reveal());
        assertThat(a.toString())
                .doesNotContain(a.reveal())
                .doesNotContain(a.reveal().substring(6, 20))
                .contains("redacted");
        assertThat(String.valueOf(List.of(a))).doesNotContain(a.reveal().substring(6));
        assertThat(new dev.sendlog.service.api.WebhookView("https://x.example/h", List.of("DELIVERED"), a.reveal())
                        .toString())
                .doesNotContain(a.reveal());
        assertThat(WebhookSecret.of(a.reveal())).isEqualTo(a).isNotEqualTo(b);
        assertThatThrownBy(() -> WebhookSecret.of("whsec_short"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("short");
    }

    @Test
    void aSealedSecretOpensOnlyWithItsKeyAndTenantAndDoesNotContainThePlainText() {
        SecretBox box = SecretBox.fromBase64(Base64.getEncoder().encodeToString(new byte[32]));
        SecretBox other =
                SecretBox.fromBase64(Base64.getEncoder().encodeToString("another 32-byte key for the test".getBytes()));
        WebhookSecret secret = WebhookSecret.generate();

        byte[] sealed = box.seal(secret, "acme");
        byte[] again = box.seal(secret, "acme");

        assertThat(box.open(sealed, "acme")).isEqualTo(secret);
        assertThat(again).as("a fresh nonce per value").isNotEqualTo(sealed);
        assertThat(new String(sealed, StandardCharsets.ISO_8859_1))
                .doesNotContain(secret.reveal().substring(6, 16));
        assertThatThrownBy(() -> box.open(sealed, "globex"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageNotContaining(secret.reveal());
        assertThatThrownBy(() -> other.open(sealed, "acme")).isInstanceOf(IllegalStateException.class);
        byte[] changed = sealed.clone();
        changed[changed.length - 1] ^= 1;
        assertThatThrownBy(() -> box.open(changed, "acme")).isInstanceOf(IllegalStateException.class);
        assertThat(SecretBox.decodeKey("c2hvcnQ=")).as("8 bytes").isNull();
        assertThat(SecretBox.decodeKey("not base64!")).isNull();
        assertThat(box.toString()).doesNotContain("AAAA");
    }
}
