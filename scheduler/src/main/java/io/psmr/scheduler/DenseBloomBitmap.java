package io.psmr.scheduler;

import java.util.function.IntConsumer;

/**
 * A {@link BloomBitmap} as a plain {@code long[]} of {@code m} bits. It remembers the range of
 * words that hold set bits, so an intersection scans only the overlap of two ranges, not all
 * {@code m/64} words.
 */
public final class DenseBloomBitmap implements BloomBitmap {

    private final int bits;
    private final long[] words;
    private int firstWord = Integer.MAX_VALUE;
    private int lastWord = -1;

    /** An empty bitmap of {@code bits} bits. */
    public DenseBloomBitmap(int bits) {
        if (bits <= 0) {
            throw new IllegalArgumentException("bitmap size must be positive, got " + bits);
        }
        this.bits = bits;
        this.words = new long[(bits + 63) >>> 6];
    }

    @Override
    public BitmapRepresentation representation() {
        return BitmapRepresentation.DENSE;
    }

    @Override
    public int sizeBits() {
        return bits;
    }

    @Override
    public void set(int bit) {
        checkBit(bit);
        int w = bit >>> 6;
        words[w] |= 1L << bit;
        if (w < firstWord) {
            firstWord = w;
        }
        if (w > lastWord) {
            lastWord = w;
        }
    }

    @Override
    public boolean get(int bit) {
        checkBit(bit);
        return (words[bit >>> 6] & (1L << bit)) != 0;
    }

    @Override
    public int cardinality() {
        int n = 0;
        for (int w = firstWord; w <= lastWord; w++) {
            n += Long.bitCount(words[w]);
        }
        return n;
    }

    @Override
    public boolean intersects(BloomBitmap other) {
        requireCompatible(other);
        DenseBloomBitmap o = (DenseBloomBitmap) other;
        int from = Math.max(firstWord, o.firstWord);
        int to = Math.min(lastWord, o.lastWord);
        long[] a = words;
        long[] b = o.words;
        for (int w = from; w <= to; w++) {
            if ((a[w] & b[w]) != 0) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void forEachSetBit(IntConsumer action) {
        for (int w = firstWord; w <= lastWord; w++) {
            long word = words[w];
            while (word != 0) {
                int bit = Long.numberOfTrailingZeros(word);
                action.accept((w << 6) + bit);
                word &= word - 1;
            }
        }
    }

    @Override
    public int[] toArray() {
        int[] out = new int[cardinality()];
        int n = 0;
        for (int w = firstWord; w <= lastWord; w++) {
            long word = words[w];
            while (word != 0) {
                out[n++] = (w << 6) + Long.numberOfTrailingZeros(word);
                word &= word - 1;
            }
        }
        return out;
    }

    private void checkBit(int bit) {
        if (bit < 0 || bit >= bits) {
            throw new IllegalArgumentException("bit " + bit + " outside a bitmap of " + bits + " bits");
        }
    }

    @Override
    public String toString() {
        return "DenseBloomBitmap[" + bits + " bits, " + cardinality() + " set]";
    }
}
