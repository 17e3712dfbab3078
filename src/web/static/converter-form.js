// The converter form's elements and its two choices (source, output), looked up once and shared by the
// converter's modules (converter.js wires them).

export const $ = (id) => document.getElementById(id);
export const form = $('convert-form');
export const els = {
  url: $('url'),
  html: $('html'),
  files: $('files'),
  folder: $('folder'),
  paper: $('paper'),
  margin: $('margin'),
  device: $('device'),
  vw: $('vw'),
  vh: $('vh'),
  quality: $('quality'),
  wait: $('wait'),
  delay: $('delay'),
  fullpage: $('fullpage'),
  landscape: $('landscape'),
  dark: $('dark'),
  key: $('key'),
  convert: $('convert'),
  cancel: $('cancel'),
  status: $('status'),
  error: $('error'),
  result: $('result'),
};

export const sourceOf = () => form.elements.source.value;
export const outputOf = () => form.elements.output.value;
