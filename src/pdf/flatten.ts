// Form fields flattened: each field's appearance (its value as drawn) becomes page content and the
// AcroForm and its widgets are removed, so the values stay visible and can no longer be changed.
import { PDFName, type PDFDocument } from 'pdf-lib';

export function flattenForms(doc: PDFDocument): void {
  // Appearances brought up to date first, so a value set without one still shows after flattening.
  doc.getForm().flatten({ updateFieldAppearances: true });
  // pdf-lib leaves an empty AcroForm behind: a reader would still call the file a form.
  doc.catalog.delete(PDFName.of('AcroForm'));
}
