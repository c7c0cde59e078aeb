import isCreditCard from "validator/lib/isCreditCard.js";
import type { CodeWindow } from "./code-runs";

/**
 * A payment card number: 13–19 digits whose issuer prefix and length are a known network's
 * (Visa, Mastercard, American Express, Discover, Diners Club, JCB, UnionPay) and whose Luhn check
 * digit is right, as validator's isCreditCard checks them.
 */
export const isCardNumber = (w: CodeWindow): boolean => /^\d{13,19}$/.test(w.compact) && isCreditCard(w.compact);
