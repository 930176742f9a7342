package dev.sendlog.simulator.smpp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.jsmpp.SMPPConstant;
import org.junit.jupiter.api.Test;

class GsmDecodingTest {
    private static byte[] octets(int... values) {
        byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = (byte) values[i];
        }
        return bytes;
    }

    @Test
    void basicTablePositionsThatDifferFromAscii() {
        assertThat(GsmAlphabet.decode(octets(0x00, 0x01, 0x02, 0x03, 0x11, 0x24, 0x40, 0x5F, 0x60, 0x7F)))
                .isEqualTo("@£$¥_¤¡§¿à");
        assertThat(GsmAlphabet.decode(octets(0x10, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A)))
                .isEqualTo("ΔΦΓΛΩΠΨΣΘΞ");
        assertThat(GsmAlphabet.decode(octets(0x5B, 0x5C, 0x5D, 0x5E, 0x7B, 0x7C, 0x7D, 0x7E)))
                .isEqualTo("ÄÖÑÜäöñü");
        assertThat(GsmAlphabet.decode(octets(0x0A, 0x0D))).isEqualTo("\n\r");
    }

    @Test
    void everyBasicPositionButTheEscapeIsADistinctCharacterThatEncodesBack() {
        Set<String> seen = new HashSet<>();
        for (int septet = 0; septet < 128; septet++) {
            if (septet == 0x1B) {
                continue;
            }
            String decoded = GsmAlphabet.decode(octets(septet));
            assertThat(decoded).hasSize(1);
            assertThat(seen.add(decoded))
                    .as("position 0x%02X decodes to a new character", septet)
                    .isTrue();
            assertThat(GsmAlphabet.encode(decoded)).containsExactly(septet);
        }
        assertThat(seen).hasSize(127);
    }

    @Test
    void extensionTableAfterTheEscape() {
        assertThat(GsmAlphabet.decode(octets(
                        0x1B, 0x65, 0x1B, 0x3C, 0x1B, 0x3E, 0x1B, 0x28, 0x1B, 0x29, 0x1B, 0x2F, 0x1B, 0x3D, 0x1B, 0x14,
                        0x1B, 0x40, 0x1B, 0x0A)))
                .isEqualTo("€[]{}\\~^|\f");
        assertThat(GsmAlphabet.encode("€")).containsExactly(0x1B, 0x65);
        assertThat(GsmAlphabet.encode("a{b}")).containsExactly(0x61, 0x1B, 0x28, 0x62, 0x1B, 0x29);
    }

    @Test
    void anUndefinedExtensionCodeShowsTheBasicCharacter() {
        assertThat(GsmAlphabet.decode(octets(0x1B, 0x41))).isEqualTo("A");
    }

    @Test
    void octetsAboveSevenBitsAndATrailingEscapeDoNotDecode() {
        assertThatThrownBy(() -> GsmAlphabet.decode(octets(0x41, 0x80))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GsmAlphabet.decode(octets(0x41, 0x1B))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GsmAlphabet.encode("☃")).isInstanceOf(IllegalArgumentException.class);
        assertThat(GsmAlphabet.canEncode("Hello €")).isTrue();
        assertThat(GsmAlphabet.canEncode("Привет")).isFalse();
    }

    @Test
    void bodiesWithUdhUcs2AndPayload() throws InvalidBodyException {
        DecodedBody sixteenBit = SubmitBodyDecoder.decode(
                (byte) 8,
                (byte) 0x40,
                concat(octets(6, 8, 4, 0xAB, 0xCD, 4, 4), "😀".getBytes(StandardCharsets.UTF_16BE)),
                null);
        assertThat(sixteenBit).isEqualTo(new DecodedBody("😀", 0xABCD, 4, 4, false));

        DecodedBody payload = SubmitBodyDecoder.decode((byte) 0, (byte) 0, new byte[0], GsmAlphabet.encode("x"));
        assertThat(payload).isEqualTo(new DecodedBody("x", 0, 1, 1, true));
    }

    @Test
    void brokenBodiesCarryTheStatusToAnswerWith() {
        assertStatus((byte) 0, (byte) 0x40, octets(5, 0, 3, 1, 2, 3), SMPPConstant.STAT_ESME_RINVMSGLEN); // part 3 of 2
        assertStatus((byte) 0, (byte) 0x40, octets(4, 0, 4, 1, 2, 1), SMPPConstant.STAT_ESME_RINVMSGLEN); // IE length 4
        assertStatus((byte) 0, (byte) 0x40, octets(3, 0, 3, 1), SMPPConstant.STAT_ESME_RINVMSGLEN); // IE past header
        assertStatus((byte) 0, (byte) 0x40, new byte[0], SMPPConstant.STAT_ESME_RINVMSGLEN);
        assertStatus((byte) 8, (byte) 0, octets(0, 0x41, 0), SMPPConstant.STAT_ESME_RINVMSGLEN);
        assertStatus((byte) 0xF5, (byte) 0, octets(0x41), SMPPConstant.STAT_ESME_RINVDCS);
        assertThatThrownBy(() -> SubmitBodyDecoder.decode((byte) 0, (byte) 0, octets(0x41), octets(0x42)))
                .isInstanceOf(InvalidBodyException.class);
    }

    private static void assertStatus(byte dataCoding, byte esmClass, byte[] body, int status) {
        assertThatThrownBy(() -> SubmitBodyDecoder.decode(dataCoding, esmClass, body, null))
                .isInstanceOfSatisfying(
                        InvalidBodyException.class,
                        e -> assertThat(e.commandStatus()).isEqualTo(status));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }
}
